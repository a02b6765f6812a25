// Code that runs when a kernel library is loaded or unloaded (gate 1, after compiling): a
// namespace-scope object with a constructor or destructor, __attribute__((constructor)), a
// thread_local object with a constructor. Such code runs outside any call of evk_forward
// (at dlopen, at exit), where it could act before the harness is ready or after it has
// reported; a kernel never needs it, since a function-local static does one-time set-up on
// the first call (and its destructor, registered at run time, is allowed).
// The toolchain adds load-time entries of its own (frame_dummy, <iostream>'s initialiser), so
// a library is compared with libraries built by the same command from sources that hold only
// that: the baselines.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "backends/elf_image.h"

namespace evk {

struct LoadTimeCode {
  uint64_t init_entries = 0, fini_entries = 0;
  uint64_t initializer_bytes = 0;  // size of the _GLOBAL__sub_I_ / _GLOBAL__sub_D_ functions
  bool tls_initializer = false;    // __tls_init or a _ZTH (thread_local initialiser) defined
};

LoadTimeCode load_time_code(const ElfImage& img);

// nullopt when `img` has no more load- or exit-time code than one of `baselines`; else
// feedback telling the candidate to use function-local statics.
std::optional<std::string> check_load_time(const ElfImage& img,
                                           const std::vector<LoadTimeCode>& baselines);

// The load-time code of libraries built from `sources` (one library each, in a private folder,
// the file named kernel.cpp) by the command `argv(src, lib)`. Throws Error when one fails.
using BuildArgv = std::function<std::vector<std::string>(const std::filesystem::path& src,
                                                         const std::filesystem::path& lib)>;
std::vector<LoadTimeCode> build_load_time_baselines(const BuildArgv& argv,
                                                    const std::vector<std::string>& sources);

}  // namespace evk
