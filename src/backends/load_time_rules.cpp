#include "backends/load_time_rules.h"

#include <string_view>

#include "core/temp_dir.h"
#include "core/error.h"
#include "core/paths.h"
#include "core/process.h"

namespace evk {

LoadTimeCode load_time_code(const ElfImage& img) {
  LoadTimeCode c;
  c.init_entries = img.init_entries;
  c.fini_entries = img.fini_entries;
  for (const auto& s : img.symbols) {
    std::string_view n = s.name;
    if (!s.defined) continue;
    if (s.function && (n.starts_with("_GLOBAL__sub_I_") || n.starts_with("_GLOBAL__sub_D_")))
      c.initializer_bytes += s.size;
    if (n == "__tls_init" || n.starts_with("_ZTH")) c.tls_initializer = true;
  }
  return c;
}

std::optional<std::string> check_load_time(const ElfImage& img,
                                           const std::vector<LoadTimeCode>& baselines) {
  LoadTimeCode c = load_time_code(img);
  if (c.tls_initializer)
    return "the library has a thread_local object with a constructor (code that runs when a "
           "thread first touches it): use a plain thread_local array or a function-local "
           "static instead";
  for (const auto& b : baselines)
    // The initialisers' size must match exactly: a candidate's own global constructor is
    // merged into the same function as <iostream>'s, so only its size betrays it.
    if (c.init_entries <= b.init_entries && c.fini_entries <= b.fini_entries &&
        c.initializer_bytes == b.initializer_bytes)
      return std::nullopt;
  return "the library runs code when it is loaded or unloaded: a namespace-scope (global or "
         "static) object with a constructor or destructor, e.g. a global std::vector, or a "
         "constructor/destructor attribute. Kernels may not run code outside evk_forward: "
         "use a function-local static (`static std::vector<float> buf;` inside a function), "
         "which is set up on the first call";
}

std::vector<LoadTimeCode> build_load_time_baselines(const BuildArgv& argv,
                                                    const std::vector<std::string>& sources) {
  std::vector<LoadTimeCode> out;
  for (const auto& text : sources) {
    TempDir dir("evk-scratch-");
    std::filesystem::path src = dir.path() / "kernel.cpp", lib = dir.path() / "kernel.so";
    write_file_atomic(src, text);
    ProcessOptions o;
    o.cwd = dir.path().string();
    o.timeout_s = 120;
    o.env["LC_ALL"] = "C";
    ProcessResult r = run_process(argv(src, lib), o);
    if (!r.ok())
      throw Error("cannot build the load-time baseline library: " + r.describe() + " " + r.err);
    out.push_back(load_time_code(read_elf_image(lib)));
  }
  return out;
}

}  // namespace evk
