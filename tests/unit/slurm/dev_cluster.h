// The dev cluster of scripts/slurm-dev as an RAII guard: `up` in the constructor, `down` in the
// destructor, always, so no test or benchmark leaves daemons behind. Each guard gets its own
// folder and ports (from the pid), so it never meets a dev cluster someone started by hand.
// While it lives, SLURM_CONF in this process's environment names it (children inherit it).
#pragma once
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "core/paths.h"
#include "core/process.h"

namespace evk::slurm_test {

// Empty when this machine can run the dev cluster; else why not (for GTEST_SKIP).
inline std::string why_no_dev_cluster() {
  for (const char* b : {"/usr/sbin/munged", "/usr/sbin/slurmctld", "/usr/sbin/slurmd",
                        "/usr/bin/sbatch", "/usr/sbin/mungekey"})
    if (::access(b, X_OK) != 0)
      return std::string(b) +
             " is missing: install slurmctld slurmd slurm-client munge "
             "(scripts/setup does) to run the Slurm tests";
  if (::geteuid() != 0) return "the dev cluster's daemons are started as root: run as root";
  return "";
}

class DevCluster {
 public:
  DevCluster() {
    int port = 20000 + static_cast<int>(::getpid() % 2000) * 2;
    dir_ =
        std::filesystem::temp_directory_path() / ("evk-slurm-test-" + std::to_string(::getpid()));
    env_ = {{"EVK_SLURM_DEV_DIR", dir_.string()}, {"EVK_SLURM_DEV_PORT", std::to_string(port)}};
    ProcessResult r = script("up");
    ok_ = r.ok();
    log_ = r.out + r.err;
    if (ok_) ::setenv("SLURM_CONF", conf().c_str(), 1);
  }
  ~DevCluster() {
    script("down");
    ::unsetenv("SLURM_CONF");
  }
  DevCluster(const DevCluster&) = delete;
  DevCluster& operator=(const DevCluster&) = delete;

  bool ok() const { return ok_; }
  const std::string& log() const { return log_; }
  std::string conf() const { return (dir_ / "slurm.conf").string(); }
  // slurmd's pid while it runs (from its pid file); 0 when there is none.
  pid_t slurmd_pid() const {
    std::ifstream in(dir_ / "slurmd.pid");
    long pid = 0;
    return in >> pid ? static_cast<pid_t>(pid) : 0;
  }
  ProcessResult script(const std::string& cmd) const {
    ProcessOptions o;
    o.env = env_;
    o.timeout_s = 120;
    return run_process({(data_root() / "scripts" / "slurm-dev").string(), cmd}, o);
  }

 private:
  std::filesystem::path dir_;
  std::map<std::string, std::string> env_;
  bool ok_ = false;
  std::string log_;
};

}  // namespace evk::slurm_test
