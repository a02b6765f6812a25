// Reading and exercising the seed knowledge bundle (knowledge/<backend>/*.md) from tests and
// from bench/knowledge_speedups. Test-side code: the product's loader is the memory module's
// Memory::seed_from_knowledge; this parser exists so the test can check the files on its own
// and compare with what the memory module loads.
//
// File format relied upon: a front-matter block between two "---" lines (one "key: value" per
// line; tags as "[a, b, c]"), then Markdown. Fenced blocks whose info string is exactly "cpp"
// are complete kernels (they define evk_forward); "cpp fragment" marks a fragment.
#pragma once
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "tasks/task.h"

namespace evk::knowledge {

struct CodeBlock {
  std::string info;  // the fence's info string: "cpp", "cpp fragment", "text", ...
  std::string code;
  int line = 0;      // 1-based line of the opening fence
  bool is_cpp() const;
  bool is_fragment() const;  // "cpp fragment"
  bool is_complete_kernel() const { return is_cpp() && !is_fragment(); }
};

struct Item {
  std::filesystem::path file;
  std::string kind, title, task;  // task: "builtin:level1/softmax" or empty
  std::vector<std::string> tags;
  std::map<std::string, std::string> front;  // every front-matter key, raw
  std::string body;                          // Markdown after the front matter
  std::vector<CodeBlock> blocks;             // every fenced block, in order
  std::vector<const CodeBlock*> kernels() const;  // complete kernels only
};

// Throws Error naming the file and line for a missing or malformed front matter or an
// unterminated fence.
Item parse_item(const std::filesystem::path& file);
// Every *.md in dir, sorted by file name.
std::vector<Item> load_bundle(const std::filesystem::path& dir);

// "builtin:level1/softmax" -> {"builtin:level1", "softmax"}; throws Error when malformed.
std::pair<std::string, std::string> split_task(const std::string& task);

// Compiles a complete kernel with the CPU backend's flags into work_dir/name.so. Returns
// the library path; on failure throws Error carrying the compiler's first lines.
std::filesystem::path compile_kernel(const std::string& code, const std::filesystem::path& include_dir,
                                     const std::filesystem::path& work_dir, const std::string& name);

// A loaded kernel library (dlclose on destruction) bound to one reference: inputs copied from
// ref.safetensors into 64-byte aligned buffers in ABI order (ref.abi), outputs allocated with
// the reference shapes, contiguous, strides in elements.
class KernelRun {
 public:
  KernelRun(const std::filesystem::path& so, const Reference& ref);
  ~KernelRun();
  KernelRun(const KernelRun&) = delete;
  KernelRun& operator=(const KernelRun&) = delete;

  // Poisons the outputs with NaN (or a sentinel for integers), calls evk_forward once and
  // compares every output with the reference: allclose(atol, rtol) and relative error norm
  // under rel_norm_bound. Returns "" when all pass, else what failed.
  std::string check(double atol = 1e-2, double rtol = 1e-2, double rel_norm_bound = 1e-2);
  // Median wall time of `runs` calls after `warmup` calls, milliseconds.
  double median_ms(int warmup, int runs);

 private:
  struct Buffer;
  int call();
  void* lib_ = nullptr;
  int (*forward_)(const void*, int32_t, void*, int32_t) = nullptr;
  std::vector<Buffer*> ins_, outs_;
  SafetensorsFile file_;
  std::vector<const Tensor*> refs_;
};

}  // namespace evk::knowledge
