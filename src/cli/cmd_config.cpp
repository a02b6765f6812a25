#include <iostream>

#include "cli/context.h"

namespace evk::cli {

void add_config_command(CLI::App& app, Context& ctx) {
  auto* cmd = app.add_subcommand("config", "Show the effective configuration");
  cmd->require_subcommand(1);
  auto* show = cmd->add_subcommand(
      "show",
      "Print every config key with its effective value and where it came from (default, "
      "file, env or flag). Secrets print as (set) or (unset).");
  show->callback([&ctx] { std::cout << ctx.config().show(); });
}

}  // namespace evk::cli
