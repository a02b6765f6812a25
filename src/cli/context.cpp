#include "cli/context.h"

#include <fmt/format.h>

#include "verify/runner_client.h"

namespace evk::cli {

Workspace& Context::workspace() {
  if (!ws_) ws_ = std::make_unique<Workspace>(Workspace::resolve(g_.workspace));
  return *ws_;
}

Config& Context::config() {
  if (!cfg_) {
    cfg_ = std::make_unique<Config>(Config::load(Workspace::resolve(g_.workspace), g_.config));
    if (g_.max_elements >= 0)
      cfg_->set("tasks.max_elements", std::to_string(g_.max_elements), "flag");
    if (g_.max_gflop >= 0) cfg_->set("tasks.max_gflop", fmt::format("{}", g_.max_gflop), "flag");
  }
  return *cfg_;
}

void add_global_options(CLI::App& app, GlobalOptions& g) {
  app.add_option("--workspace", g.workspace,
                 "workspace folder (default: $EVK_WORKSPACE or ./.evokernel)");
  app.add_option("--config", g.config,
                 "config file (default: <workspace>/evokernel.toml when present)");
  app.add_option("--max-elements", g.max_elements,
                 "fit tasks so their inputs, parameters and buffers hold at most N elements "
                 "(0: no bound; config tasks.max_elements, 16777216)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--max-gflop", g.max_gflop,
                 "fit tasks so one forward does at most G GFLOP (0: no bound; config "
                 "tasks.max_gflop, 4)")
      ->check(CLI::NonNegativeNumber);
  app.add_flag_callback(
      "--unsafe-no-jail", [] { set_unsafe_no_jail(true); },
      "run candidate kernels even where this machine cannot jail them (no user namespaces: "
      "see `evokernel doctor`); the seccomp filter still applies and verdicts carry "
      "\"jailed\": false. Only on a machine you can afford to lose");
}

}  // namespace evk::cli
