#include "memory/item.h"

#include <ctime>

#include "core/error.h"
#include "core/json_read.h"

namespace evk {

std::string kind_name(ItemKind k) {
  switch (k) {
    case ItemKind::Api: return "api";
    case ItemKind::Experience: return "experience";
    case ItemKind::Trace: return "trace";
    case ItemKind::BestPractice: return "best_practice";
  }
  return "trace";
}

ItemKind kind_from(const std::string& name) {
  if (name == "api") return ItemKind::Api;
  if (name == "experience") return ItemKind::Experience;
  if (name == "trace") return ItemKind::Trace;
  if (name == "best_practice") return ItemKind::BestPractice;
  throw UsageError("unknown memory item kind '" + name +
                   "' (use api, experience, trace or best_practice)");
}

std::string item_text(const Item& it) {
  std::string s = it.title + "\n";
  for (const auto& t : it.tags) s += t + " ";
  s += "\n" + it.body + "\n" + it.code + "\n" + it.feedback;
  return s;
}

nlohmann::json to_json(const Item& it) {
  nlohmann::json j = {{"id", it.id},       {"kind", kind_name(it.kind)},
                      {"backend", it.backend}, {"origin_task", it.origin_task},
                      {"title", it.title}, {"body", it.body},
                      {"code", it.code},   {"feedback", it.feedback},
                      {"tags", it.tags},   {"feasible", it.feasible},
                      {"created", it.created}};
  j["latency_ms"] = it.latency_ms ? nlohmann::json(*it.latency_ms) : nlohmann::json();
  j["parent"] = it.parent ? nlohmann::json(*it.parent) : nlohmann::json();
  return j;
}

Item item_from_json(const nlohmann::json& j) {
  Item it;
  it.id = json_int(j, "id", int64_t{0});
  it.kind = kind_from(j.value("kind", "trace"));
  it.backend = j.value("backend", "cpu");
  it.origin_task = j.value("origin_task", "");
  it.title = j.value("title", "");
  it.body = j.value("body", "");
  it.code = j.value("code", "");
  it.feedback = j.value("feedback", "");
  it.tags = j.value("tags", std::vector<std::string>{});
  it.feasible = j.value("feasible", false);
  it.created = j.value("created", "");
  if (j.contains("latency_ms") && !j["latency_ms"].is_null())
    it.latency_ms = j["latency_ms"].get<double>();
  if (j.contains("parent") && !j["parent"].is_null()) it.parent = json_int<int64_t>(j["parent"]);
  return it;
}

std::string iso_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace evk
