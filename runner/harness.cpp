#include "harness.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <memory>
#include <new>

#include "channels.h"
#include "core/error.h"
#include "runtime_prelude.h"
#include "sandbox.h"

extern "C" {
typedef struct {
  void* data;
  int32_t dtype;
  int32_t ndim;
  const int64_t* shape;
  const int64_t* strides;
} evk_tensor;
typedef int (*evk_forward_fn)(const evk_tensor*, int32_t, evk_tensor*, int32_t);
}

namespace evk::runner {
namespace {

using nlohmann::json;

std::vector<int64_t> row_major_strides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> st(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i) st[i] = st[i + 1] * shape[i + 1];
  return st;
}

struct FreeDeleter {
  void operator()(uint8_t* p) const { std::free(p); }
};

// One tensor buffer of a group, 64-byte aligned.
struct Buffer {
  DType dtype = DType::F32;
  std::vector<int64_t> shape, strides;
  size_t nbytes = 0;
  std::unique_ptr<uint8_t, FreeDeleter> data;
};

// The input buffers of one group and the set they hold. A group keeps its addresses while
// the sets loaded into it keep their shapes: a kernel keyed on addresses sees new values there.
struct Group {
  int set = -1;
  std::vector<Buffer> bufs;
};

// Copies `n` bytes to `dst` where they differ, 64 bytes at a time (a variant set differs from
// the set before it in a few positions only: loading it is cheap and leaves the rest alone).
void copy_differing(uint8_t* dst, const uint8_t* src, size_t n) {
  for (size_t off = 0; off < n; off += 64) {
    size_t m = std::min<size_t>(64, n - off);
    if (std::memcmp(dst + off, src + off, m) != 0) std::memcpy(dst + off, src + off, m);
  }
}

class Harness {
 public:
  Harness(const RunnerJob& job, int report_fd)
      : job_(job), events_(report_fd), ctl_(job.control_fd), cmds_(job.control_fd), rep_fd_(report_fd) {}

  int run() {
    events_.emit({{"event", "started"}});  // the parent learns the pid from this line
    Mapping in(job_.inputs_fd, job_.inputs_bytes, false);
    Mapping out(job_.outputs_fd, job_.slot_bytes * static_cast<size_t>(job_.slots), true);
    in_ = &in;
    out_ = &out;
    // Landlock and the system-call filter go on before the library is loaded: its global
    // constructors are candidate code too (sandbox.h).
    if (std::string why = enter_sandbox(rep_fd_, job_.library); !why.empty())
      return load_error(why);
    void* lib = ::dlopen(job_.library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) return load_error(std::string("cannot load the library: ") + ::dlerror());
    fn_ = reinterpret_cast<evk_forward_fn>(::dlsym(lib, "evk_forward"));
    if (!fn_)
      return load_error("the library does not export evk_forward: define it with extern \"C\" "
                        "and include evokernel/kernel_abi.h");
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

 private:
  void load(int g, int s) {
    if (s < 0 || s >= static_cast<int>(job_.sets.size())) throw Error("no input set " + std::to_string(s));
    const RunnerSet& set = job_.sets[s];
    Group& grp = groups_[g];
    bool same = grp.bufs.size() == set.inputs.size();
    for (size_t i = 0; same && i < set.inputs.size(); ++i)
      same = grp.bufs[i].shape == set.inputs[i].shape && grp.bufs[i].dtype == set.inputs[i].dtype;
    if (!same) {
      grp.bufs.clear();
      for (const auto& t : set.inputs) {
        Buffer b;
        b.dtype = t.dtype;
        b.shape = t.shape;
        b.strides = row_major_strides(t.shape);
        b.nbytes = t.nbytes;
        size_t alloc = std::max<size_t>(kRunnerAlign, (t.nbytes + kRunnerAlign - 1) / kRunnerAlign * kRunnerAlign);
        b.data.reset(static_cast<uint8_t*>(std::aligned_alloc(kRunnerAlign, alloc)));
        if (!b.data) throw std::bad_alloc();
        std::memcpy(b.data.get(), source(t), t.nbytes);
        grp.bufs.push_back(std::move(b));
      }
    } else {
      for (size_t i = 0; i < set.inputs.size(); ++i)
        copy_differing(grp.bufs[i].data.get(), source(set.inputs[i]), set.inputs[i].nbytes);
    }
    grp.set = s;
  }

  const uint8_t* source(const RunnerTensor& t) const {
    if (t.offset + t.nbytes > in_->size()) throw Error("an input lies outside the inputs region");
    return in_->data() + t.offset;
  }

  // The views of one call, built before the clock starts.
  struct CallViews {
    std::vector<evk_tensor> in, out;
  };

  CallViews views(int g, int slot) {
    auto it = groups_.find(g);
    if (it == groups_.end() || it->second.set < 0) throw Error("group " + std::to_string(g) + " holds no set");
    if (slot < 0 || slot >= job_.slots) throw Error("no slot " + std::to_string(slot));
    const RunnerSet& set = job_.sets[it->second.set];
    CallViews v;
    for (auto& b : it->second.bufs)
      v.in.push_back({b.data.get(), static_cast<int32_t>(b.dtype), static_cast<int32_t>(b.shape.size()),
                      b.shape.data(), b.strides.data()});
    auto& ost = out_strides_[it->second.set];
    if (ost.empty())
      for (const auto& o : set.outputs) ost.push_back(row_major_strides(o.shape));
    auto off = output_offsets(set);
    uint8_t* base = out_->data() + static_cast<size_t>(slot) * job_.slot_bytes;
    for (size_t i = 0; i < set.outputs.size(); ++i)
      v.out.push_back({base + off[i], static_cast<int32_t>(set.outputs[i].dtype),
                       static_cast<int32_t>(set.outputs[i].shape.size()), set.outputs[i].shape.data(),
                       ost[i].data()});
    return v;
  }

  void run_calls(const json& calls) {
    std::vector<CallViews> vs;
    std::vector<int> used;
    for (const auto& c : calls) {
      vs.push_back(views(c.at(0).get<int>(), c.at(1).get<int>()));
      used.push_back(c.at(0).get<int>());
    }
    std::vector<double> ms;
    ms.reserve(vs.size());
    int rc = 0, failed = -1;
    std::string exception;
    ctl_.emit({{"go", true}});
    for (size_t k = 0; k < vs.size(); ++k) {
      auto& v = vs[k];
      double t0 = now_ms();
      try {
        rc = fn_(v.in.data(), static_cast<int32_t>(v.in.size()), v.out.data(), static_cast<int32_t>(v.out.size()));
      } catch (const std::bad_alloc&) {
        exception = "std::bad_alloc (out of memory)";
      } catch (const std::exception& e) {
        exception = e.what();
      } catch (...) {
        exception = "an exception that is not a std::exception";
      }
      ms.push_back(now_ms() - t0);
      ++calls_;
      if (rc != 0 || !exception.empty()) {
        failed = static_cast<int>(k);
        break;
      }
    }
    ctl_.emit({{"done", true}, {"ms", ms}, {"rc", rc}, {"exception", exception}, {"failed_call", failed}});
    ctl_.emit({{"checked", true}, {"mutated", mutation(used)}});
  }

  // "in.0 at element 12" when a group's buffers no longer hold the set loaded into them.
  std::string mutation(const std::vector<int>& used) const {
    for (int g : used) {
      const Group& grp = groups_.at(g);
      const RunnerSet& set = job_.sets[grp.set];
      for (size_t i = 0; i < grp.bufs.size(); ++i) {
        const uint8_t* a = grp.bufs[i].data.get();
        const uint8_t* b = source(set.inputs[i]);
        size_t n = grp.bufs[i].nbytes;
        if (std::memcmp(a, b, n) == 0) continue;
        size_t k = 0;
        while (a[k] == b[k]) ++k;
        std::string name = i < job_.abi.size() ? job_.abi[i] : "input " + std::to_string(i);
        return fmt::format("{} at element {}", name, k / std::max<size_t>(1, dtype_size(grp.bufs[i].dtype)));
      }
    }
    return "";
  }

  int load_error(const std::string& what) {
    events_.emit({{"event", "load_error"}, {"what", what}});
    return 0;
  }

  const RunnerJob& job_;
  Reporter events_, ctl_;
  CommandReader cmds_;
  int rep_fd_;
  Mapping* in_ = nullptr;
  Mapping* out_ = nullptr;
  evk_forward_fn fn_ = nullptr;
  std::map<int, Group> groups_;
  std::map<int, std::vector<std::vector<int64_t>>> out_strides_;
  int64_t calls_ = 0;
};

}  // namespace

int run_harness(const RunnerJob& job, int report_fd) {
  Harness h(job, report_fd);
  return h.run();
}

}  // namespace evk::runner
