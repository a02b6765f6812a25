#include "knowledge_bundle.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>

#include "core/error.h"
#include "core/paths.h"
#include "core/process.h"

namespace evk::knowledge {
namespace fs = std::filesystem;

namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// Drops a trailing "# comment" (front-matter values never contain '#').
std::string strip_comment(const std::string& s) {
  size_t h = s.find(" #");
  return trim(h == std::string::npos ? s : s.substr(0, h));
}

std::vector<std::string> parse_list(const std::string& v, const std::string& where) {
  if (v.size() < 2 || v.front() != '[' || v.back() != ']')
    throw Error(where + ": tags must be a list like [softmax, openmp], got '" + v + "'");
  std::vector<std::string> out;
  std::stringstream ss(v.substr(1, v.size() - 2));
  std::string t;
  while (std::getline(ss, t, ',')) {
    t = trim(t);
    if (!t.empty()) out.push_back(t);
  }
  return out;
}

}  // namespace

bool CodeBlock::is_cpp() const { return info == "cpp" || info.rfind("cpp ", 0) == 0; }
bool CodeBlock::is_fragment() const { return info == "cpp fragment"; }

std::vector<const CodeBlock*> Item::kernels() const {
  std::vector<const CodeBlock*> out;
  for (const auto& b : blocks)
    if (b.is_complete_kernel()) out.push_back(&b);
  return out;
}

Item parse_item(const fs::path& file) {
  Item item;
  item.file = file;
  std::stringstream in(read_file(file));
  std::string line;
  int n = 0;
  auto where = [&] { return file.string() + ":" + std::to_string(n); };
  if (!std::getline(in, line) || trim(line) != "---")
    throw Error(file.string() + ": must start with a '---' front-matter line");
  ++n;
  bool closed = false;
  while (std::getline(in, line)) {
    ++n;
    if (trim(line) == "---") {
      closed = true;
      break;
    }
    if (trim(line).empty()) continue;
    size_t c = line.find(':');
    if (c == std::string::npos) throw Error(where() + ": front-matter line without 'key:'");
    item.front[trim(line.substr(0, c))] = strip_comment(line.substr(c + 1));
  }
  if (!closed) throw Error(file.string() + ": front matter is not closed by '---'");
  item.kind = item.front["kind"];
  item.title = item.front["title"];
  item.task = item.front.count("task") ? item.front["task"] : "";
  if (item.front.count("tags")) item.tags = parse_list(item.front["tags"], file.string());

  std::ostringstream body;
  CodeBlock* open = nullptr;
  std::string fence;
  while (std::getline(in, line)) {
    ++n;
    body << line << '\n';
    std::string t = trim(line);
    if (!open && t.rfind("```", 0) == 0) {
      item.blocks.push_back({trim(t.substr(3)), "", n});
      open = &item.blocks.back();
    } else if (open && t == "```") {
      open = nullptr;
    } else if (open) {
      open->code += line + '\n';
    }
  }
  if (open) throw Error(file.string() + ":" + std::to_string(open->line) + ": unterminated code fence");
  item.body = body.str();
  return item;
}

std::vector<Item> load_bundle(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".md") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<Item> items;
  for (const auto& f : files) items.push_back(parse_item(f));
  return items;
}

std::pair<std::string, std::string> split_task(const std::string& task) {
  size_t s = task.rfind('/');
  if (task.rfind("builtin:", 0) != 0 || s == std::string::npos || s + 1 == task.size())
    throw Error("task '" + task + "' is not of the form builtin:<suite>/<task id>");
  return {task.substr(0, s), task.substr(s + 1)};
}

fs::path compile_kernel(const std::string& code, const fs::path& include_dir,
                        const fs::path& work_dir, const std::string& name) {
  fs::create_directories(work_dir);
  fs::path src = work_dir / (name + ".cpp"), so = work_dir / (name + ".so");
  write_file_atomic(src, code);
  ProcessOptions opt;
  opt.timeout_s = 120;
  ProcessResult r = run_process({"g++", "-std=c++17", "-O3", "-march=native", "-fopenmp", "-shared", "-fvisibility=hidden",
                                 "-fPIC", "-I", include_dir.string(), "-o", so.string(), src.string()},
                                opt);
  if (!r.ok()) throw Error("compiling " + name + " failed (" + r.describe() + "):\n" + r.err.substr(0, 3000));
  return so;
}

// Mirrors evk_tensor of knowledge/cpu/evokernel/kernel_abi.h (the C ABI, DLPack-like). Named,
// not anonymous: KernelRun::Buffer, which has linkage, holds one.
struct AbiTensor {
  void* data;
  int32_t dtype;
  int32_t ndim;
  const int64_t* shape;
  const int64_t* strides;
};

struct KernelRun::Buffer {
  DType dtype;
  std::vector<int64_t> shape, strides;
  size_t nbytes = 0;
  void* data = nullptr;
  AbiTensor abi{};
  Buffer(DType t, const std::vector<int64_t>& s) : dtype(t), shape(s), strides(s.size(), 1) {
    int64_t n = 1;
    for (int i = static_cast<int>(s.size()) - 1; i >= 0; --i) {
      strides[i] = n;
      n *= s[i];
    }
    nbytes = static_cast<size_t>(n) * dtype_size(t);
    data = std::aligned_alloc(64, std::max<size_t>(64, (nbytes + 63) / 64 * 64));
    if (!data) throw Error("out of memory allocating a kernel buffer");
    abi = {data, static_cast<int32_t>(t), static_cast<int32_t>(s.size()), shape.data(), strides.data()};
  }
  ~Buffer() { std::free(data); }
};

KernelRun::KernelRun(const fs::path& so, const Reference& ref) : file_(read_safetensors(ref.tensors_path)) {
  lib_ = ::dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib_) throw Error("dlopen " + so.string() + ": " + ::dlerror());
  forward_ = reinterpret_cast<int (*)(const void*, int32_t, void*, int32_t)>(::dlsym(lib_, "evk_forward"));
  if (!forward_) throw Error(so.string() + " does not export evk_forward");
  for (const auto& spec : ref.abi) {
    auto it = file_.tensors.find(spec.name);
    if (it == file_.tensors.end()) throw Error("reference lacks " + spec.name);
    auto* b = new Buffer(it->second.dtype, it->second.shape);
    ins_.push_back(b);
    std::memcpy(b->data, it->second.data.data(), b->nbytes);
  }
  for (const auto& spec : ref.outputs) {
    auto it = file_.tensors.find(spec.name);
    if (it == file_.tensors.end()) throw Error("reference lacks " + spec.name);
    outs_.push_back(new Buffer(spec.dtype, spec.shape));
    refs_.push_back(&it->second);
  }
}

KernelRun::~KernelRun() {
  for (auto* b : ins_) delete b;
  for (auto* b : outs_) delete b;
  if (lib_) ::dlclose(lib_);
}

int KernelRun::call() {
  std::vector<AbiTensor> in, out;
  for (auto* b : ins_) in.push_back(b->abi);
  for (auto* b : outs_) out.push_back(b->abi);
  return forward_(in.data(), static_cast<int32_t>(in.size()), out.data(), static_cast<int32_t>(out.size()));
}

std::string KernelRun::check(double atol, double rtol, double rel_norm_bound) {
  for (auto* b : outs_) std::memset(b->data, 0xff, b->nbytes);  // NaN for floats, -1 for ints
  int rc = call();
  if (rc != 0) return "evk_forward returned " + std::to_string(rc);
  std::ostringstream msg;
  for (size_t o = 0; o < outs_.size(); ++o) {
    Tensor got;
    got.dtype = outs_[o]->dtype;
    got.shape = outs_[o]->shape;
    got.data.assign(static_cast<uint8_t*>(outs_[o]->data), static_cast<uint8_t*>(outs_[o]->data) + outs_[o]->nbytes);
    const Tensor& want = *refs_[o];
    int64_t n = want.numel(), bad = 0, first = -1;
    double err2 = 0, ref2 = 0, max_abs = 0;
    for (int64_t i = 0; i < n; ++i) {
      double a = got.at(i), w = want.at(i), d = std::fabs(a - w);
      if (!(d <= atol + rtol * std::fabs(w))) {
        if (first < 0) first = i;
        ++bad;
      }
      if (std::isfinite(d)) max_abs = std::max(max_abs, d);
      err2 += std::isfinite(d) ? d * d : std::numeric_limits<double>::infinity();
      ref2 += w * w;
    }
    double rel = ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2);
    if (bad > 0 || !(rel <= rel_norm_bound)) {
      msg << "out." << o << ": " << bad << " of " << n << " elements mismatch, max abs error " << max_abs
          << ", relative error norm " << rel;
      if (first >= 0) msg << ", first bad index " << first << " (got " << got.at(first) << ", want " << want.at(first) << ")";
      msg << "; ";
    }
  }
  return msg.str();
}

double KernelRun::median_ms(int warmup, int runs) {
  for (int i = 0; i < warmup; ++i) call();
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    auto a = std::chrono::steady_clock::now();
    call();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace evk::knowledge
