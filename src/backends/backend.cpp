#include "backends/backend.h"

#include <fmt/format.h>

#include "backends/registry.h"
#include "core/paths.h"
#include "tasks/task.h"

namespace evk {

std::filesystem::path Backend::knowledge_dir() const {
  return data_root() / "knowledge" / name();
}

RunnerSpec Backend::runner(const std::filesystem::path&) const {
  const BackendRow& row = backend_row(name());
  RunnerSpec s;
  s.executable = row.runner;
  s.device_nodes = row.device_nodes;
  s.system_dirs = row.system_dirs;
  return s;
}

bool Backend::modeled_latency() const {
  return backend_row(name()).timing == Timing::Modeled;
}

double Backend::eager_ms_for(const Reference& r) const {
  auto m = modeled_eager(r);
  return m ? m->ms : r.eager_ms;
}

std::string Backend::timing_note(int threads) const {
  return fmt::format(
      "The verifier times this kernel, and PyTorch eager for the speed-up, on {} CPU thread{} "
      "(verify.threads): more threads than that buy no speed-up.",
      threads, threads == 1 ? "" : "s");
}

std::vector<std::string> backend_names() {
  std::vector<std::string> out;
  for (const auto& r : backend_rows()) out.push_back(r.name);
  return out;
}

std::string backend_help() {
  std::string s;
  for (const auto& n : backend_names()) s += (s.empty() ? "" : "|") + n;
  return s;
}

std::unique_ptr<Backend> make_backend(const std::string& name) {
  return backend_row(name).make();
}

}  // namespace evk
