#include "harness.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <new>

#include "core/error.h"
#include "harness_base.h"

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

// Tensors in this process's memory, 64-byte aligned; the runner's clock around each call.
class Harness : public HarnessBase {
 public:
  using HarnessBase::HarnessBase;

 private:
  void load(int g, int s) override {
    const RunnerSet& set = input_set(s);
    Group& grp = groups_[g];
    if (!same_layout(grp.bufs, set.inputs)) {
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

  void run_calls(const json& calls) override {
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
      rc = call_forward(fn_, v.in, v.out, exception);
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
      for (size_t i = 0; i < grp.bufs.size(); ++i)
        if (std::string m = mutation_text(input_name(i), grp.bufs[i].data.get(), source(set.inputs[i]),
                                          grp.bufs[i].nbytes, grp.bufs[i].dtype);
            !m.empty())
          return m;
    }
    return "";
  }

  std::map<int, Group> groups_;
  std::map<int, std::vector<std::vector<int64_t>>> out_strides_;
};

}  // namespace

int run_harness(const RunnerJob& job, int report_fd) {
  Harness h(job, report_fd);
  return h.run();
}

}  // namespace evk::runner
