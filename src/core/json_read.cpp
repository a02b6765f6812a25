#include "core/json_read.h"

namespace evk {
using nlohmann::json;

json parse_json(std::string_view text, int max_depth) {
  // The callback sees each container as it opens, with the number of containers around it:
  // it stops the parse at the first one too deep, before anything deep exists.
  json::parser_callback_t guard = [max_depth](int depth, json::parse_event_t event, json&) {
    bool opens =
        event == json::parse_event_t::object_start || event == json::parse_event_t::array_start;
    if (opens && depth >= max_depth)
      throw json::out_of_range::create(
          410, "nesting deeper than " + std::to_string(max_depth) + " levels", nullptr);
    return true;
  };
  return json::parse(text.begin(), text.end(), guard);
}

int64_t json_int64(const json& v, int64_t lo, int64_t hi) {
  if (!v.is_number_integer())
    throw json::type_error::create(
        302, std::string("type must be an integer, but is ") + v.type_name(), &v);
  // Unsigned values above INT64_MAX are out of every range asked for.
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(hi))
    throw json::out_of_range::create(406, "integer " + v.dump() + " is out of range", &v);
  int64_t x = v.is_number_unsigned() ? static_cast<int64_t>(v.get<uint64_t>()) : v.get<int64_t>();
  if (x < lo || x > hi)
    throw json::out_of_range::create(406, "integer " + v.dump() + " is out of range", &v);
  return x;
}

}  // namespace evk
