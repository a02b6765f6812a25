// Reading JSON that came from outside the process: a runner's replies, the oracle's output, a
// user's manifest, cassette or memory file. Two hazards of nlohmann::json that such input can
// reach, closed here:
//   - depth: parsing is iterative, but copying, comparing and dumping a value recurse once per
//     level, so a document nested a hundred thousand levels deep overflows the stack later,
//     far from where it was read. parse_json refuses nesting deeper than kJsonMaxDepth.
//   - numbers: get<int64_t>() of a floating value converts with static_cast, which is
//     undefined behaviour when the value is out of range (1e300) and silently truncates 2.5.
//     json_int accepts integers only, within the range of the type asked for.
// Both report a json::exception (what existing handlers catch), whose text names the problem.
#pragma once
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace evk {

// Deeper than any document evokernel writes (its deepest, a cassette request, nests 4 levels;
// a model's "extra" options a few more).
inline constexpr int kJsonMaxDepth = 64;

// json::parse, refusing nesting deeper than max_depth (json::out_of_range naming the limit).
nlohmann::json parse_json(std::string_view text, int max_depth = kJsonMaxDepth);

// The integer `v` holds, as T: json::type_error when it is not an integer (a float, a string,
// a boolean), json::out_of_range when T cannot hold it.
int64_t json_int64(const nlohmann::json& v, int64_t lo, int64_t hi);
template <class T>
T json_int(const nlohmann::json& v) {
  static_assert(std::numeric_limits<T>::is_integer && sizeof(T) <= sizeof(int64_t));
  constexpr int64_t hi = sizeof(T) == sizeof(int64_t) && !std::numeric_limits<T>::is_signed
                             ? std::numeric_limits<int64_t>::max()
                             : static_cast<int64_t>(std::numeric_limits<T>::max());
  return static_cast<T>(json_int64(v, static_cast<int64_t>(std::numeric_limits<T>::min()), hi));
}
// The same for member `key` of object `obj`, `dflt` when absent or null.
template <class T>
T json_int(const nlohmann::json& obj, const char* key, T dflt) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return dflt;
  return json_int<T>(*it);
}

}  // namespace evk
