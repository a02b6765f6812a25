#include "harness_base.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <iterator>
#include <new>

#include "core/error.h"
#include "sandbox.h"

namespace evk::runner {

HarnessBase::HarnessBase(const RunnerJob& job, int report_fd)
    : job_(job), events_(report_fd), ctl_(job.control_fd), rep_fd_(report_fd), cmds_(job.control_fd) {}

std::string HarnessBase::sandbox() { return enter_sandbox(rep_fd_, job_.library); }

int HarnessBase::run() {
  events_.emit({{"event", "started"}});  // the parent learns the pid from this line
  Mapping in(job_.inputs_fd, job_.inputs_bytes, false);
  Mapping out(job_.outputs_fd, job_.slot_bytes * static_cast<size_t>(job_.slots), true);
  in_ = &in;
  out_ = &out;
  if (std::string why = prepare(); !why.empty()) return load_error(why);
  if (std::string why = sandbox(); !why.empty()) return load_error(why);
  void* lib = ::dlopen(job_.library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) return load_error(std::string("cannot load the library: ") + ::dlerror());
  fn_ = reinterpret_cast<evk_forward_fn>(::dlsym(lib, "evk_forward"));
  if (!fn_)
    return load_error("the library does not export evk_forward: define it with " + export_hint() +
                      " and include evokernel/kernel_abi.h");
  after_load();
  ctl_.emit({{"ready", true}});
  while (auto cmd = cmds_.next()) {
    std::string op = cmd->value("op", "");
    if (op == "load") {
      load(cmd->at("group").get<int>(), cmd->at("set").get<int>());
      ctl_.emit({{"ok", true}});
    } else if (op == "run") {
      run_calls(cmd->at("calls"));
    } else if (op == "quit") {
      ctl_.emit({{"result", true}, {"calls", calls_}});
      return 0;
    } else {
      throw Error("unknown command " + op);
    }
  }
  return 0;  // the parent went away
}

const RunnerSet& HarnessBase::input_set(int s) const {
  if (s < 0 || s >= static_cast<int>(job_.sets.size()))
    throw Error("no input set " + std::to_string(s));
  return job_.sets[static_cast<size_t>(s)];
}

const uint8_t* HarnessBase::source(const RunnerTensor& t) const {
  if (t.offset + t.nbytes > in_->size()) throw Error("an input lies outside the inputs region");
  return in_->data() + t.offset;
}

std::string HarnessBase::input_name(size_t i) const {
  return i < job_.abi.size() ? job_.abi[i] : "input " + std::to_string(i);
}

int HarnessBase::load_error(const std::string& what) {
  events_.emit({{"event", "load_error"}, {"what", what}});
  return 0;
}

int serve_job(const char* program, int (*harness)(const RunnerJob& job, int report_fd)) {
  try {
    std::string text((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    RunnerJob job = runner_job_from_json(nlohmann::json::parse(text));
    std::fflush(stdout);
    int report_fd = ::fcntl(1, F_DUPFD_CLOEXEC, 10);
    if (report_fd < 0 || ::dup2(2, 1) < 0) {
      std::fprintf(stderr, "%s: cannot set up the verdict channel: %s\n", program, std::strerror(errno));
      return 3;
    }
    return harness(job, report_fd);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", program, e.what());
    return 3;
  }
}

int call_forward(evk_forward_fn fn, std::vector<evk_tensor>& in, std::vector<evk_tensor>& out,
                 std::string& exception) {
  try {
    return fn(in.data(), static_cast<int32_t>(in.size()), out.data(), static_cast<int32_t>(out.size()));
  } catch (const std::bad_alloc&) {
    exception = "std::bad_alloc (out of memory)";
  } catch (const std::exception& e) {
    exception = e.what();
  } catch (...) {
    exception = "an exception that is not a std::exception";
  }
  return 0;
}

std::string mutation_text(const std::string& name, const uint8_t* now, const uint8_t* was, size_t n,
                          DType t) {
  if (std::memcmp(now, was, n) == 0) return "";
  size_t k = 0;
  while (now[k] == was[k]) ++k;
  return fmt::format("{} at element {}", name, k / std::max<size_t>(1, dtype_size(t)));
}

}  // namespace evk::runner
