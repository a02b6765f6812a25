// evokernel: one binary, one subcommand per job. Usage errors print one line and exit 2.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/context.h"
#include "core/build_info.h"
#include "core/error.h"

using namespace evk;

int main(int argc, char** argv) {
  CLI::App app{
      "evokernel: an LLM writes correct, then fast, compute kernels for a backend it has barely "
      "seen, learning which past experiences to show it (value-driven memory, EvoKernel)."};
  app.require_subcommand(1);
  app.fallthrough();  // global options may come after the subcommand too
  app.set_version_flag("--version", build_string());
  cli::GlobalOptions g;
  cli::add_global_options(app, g);
  cli::Context ctx(g);

  cli::add_doctor_command(app, ctx);
  cli::add_config_command(app, ctx);
  cli::add_tasks_command(app, ctx);
  cli::add_run_command(app, ctx);
  cli::add_verify_command(app, ctx);
  cli::add_verify_job_command(app, ctx);
  cli::add_llm_command(app, ctx);
  cli::add_memory_command(app, ctx);
  cli::add_report_command(app, ctx);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "evokernel: error: " << e.what() << " (see `evokernel --help`)\n";
    return 2;
  } catch (const UsageError& e) {
    std::cerr << "evokernel: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "evokernel: error: " << e.what() << "\n";
    return 1;
  }
  return ctx.exit_code;
}
