#include "backends/import_rules.h"

#include <cxxabi.h>
#include <fmt/format.h>

#include <cstdlib>
#include <memory>
#include <string_view>
#include <vector>

namespace evk {
namespace {

// Libraries every import of which is allowed.
const std::set<std::string, std::less<>> kLibraries = {"libm.so.6", "libmvec.so.1",
                                                        "libgcc_s.so.1", "libgomp.so.1"};

// Exceptions inside the allowed libraries, and names refused wherever they come from.
const std::set<std::string, std::less<>> kRefused = {"omp_get_wtime", "omp_get_wtick"};

// Whole names allowed from libc, libstdc++ and the toolchain (or unversioned: the weak
// references crtstuff and libstdc++'s headers make).
const std::set<std::string, std::less<>> kNames = {
    // memory
    "malloc", "calloc", "realloc", "free", "aligned_alloc", "posix_memalign", "memalign",
    "memcpy", "memmove", "memset", "memcmp", "memchr", "__memcpy_chk", "__memmove_chk",
    "__memset_chk", "bzero",
    // strings and conversions
    "strlen", "strnlen", "strcmp", "strncmp", "strcpy", "strncpy", "strcat", "strncat", "strchr",
    "strrchr", "strstr", "__strcpy_chk", "__strncpy_chk", "__strcat_chk", "strtol", "strtoul",
    "strtoll", "strtoull", "strtod", "strtof", "strtold", "atoi", "atol", "atof",
    "__isoc99_sscanf", "sscanf",
    // output (stdout and stderr: no file can be opened)
    "printf", "vprintf", "fprintf", "vfprintf", "puts", "putchar", "fputs", "fputc", "putc",
    "fwrite", "fflush", "__printf_chk", "__fprintf_chk", "__vprintf_chk", "__vfprintf_chk",
    "sprintf", "snprintf", "vsprintf", "vsnprintf", "__sprintf_chk", "__snprintf_chk",
    "__vsprintf_chk", "__vsnprintf_chk", "stdout", "stderr",
    // arithmetic and sorting
    "abs", "labs", "llabs", "div", "ldiv", "qsort", "bsearch", "rand", "srand", "rand_r",
    "frexp", "frexpf", "ldexp", "ldexpf", "modf", "modff", "copysign", "copysignf", "isinf",
    "isnan", "finite", "__isinf", "__isnan", "__isinff", "__isnanf", "__finite", "__finitef",
    // errors, assertions, stack protector, thread-local data
    "__errno_location", "__assert_fail", "abort", "__stack_chk_fail", "__tls_get_addr",
    // the C++ runtime
    "__gxx_personality_v0", "_Unwind_Resume", "__cxa_finalize", "__gmon_start__",
    "_ITM_deregisterTMCloneTable", "_ITM_registerTMCloneTable", "__libc_single_threaded",
    "__pthread_key_create", "pthread_mutex_lock", "pthread_mutex_unlock",
    "pthread_mutex_trylock", "pthread_once",  // std::mutex, std::call_once: no new threads
    "_ZSt9terminatev", "_ZSt11_Hash_bytesPKvmm",
    "_ZSt15_Fnv_hash_bytesPKvmm", "_ZSt4cout", "_ZSt4cerr", "_ZSt4clog",
};

// Name prefixes allowed from libc and libstdc++.
const std::string_view kPrefixes[] = {
    "__cxa_",  // exceptions, guards of function-local statics, atexit, pure virtuals
    "_Znw", "_Zna", "_Zdl", "_Zda",  // operator new and delete
    "_ZTI", "_ZTS", "_ZTV",          // type information and vtables
    "_ZNSt9exception", "_ZNKSt9exception", "_ZNSt13runtime_error", "_ZNKSt13runtime_error",
    "_ZNSt11logic_error", "_ZNKSt11logic_error", "_ZNSt12length_error", "_ZNSt12out_of_range",
    "_ZNSt16invalid_argument", "_ZNSt11range_error", "_ZNSt14overflow_error",
    "_ZNSt15underflow_error", "_ZNSt12domain_error", "_ZNSt9bad_alloc", "_ZNKSt9bad_alloc",
    "_ZNSt20bad_array_new_length", "_ZNSt8bad_cast", "_ZNSt17bad_function_call",
    "_ZNSt18bad_variant_access", "_ZNSt19bad_optional_access", "_ZNSt13bad_any_cast",
    "_ZNSt7__cxx1112basic_string", "_ZNKSt7__cxx1112basic_string",
    "_ZNSt7__cxx1118basic_stringstream", "_ZNSt7__cxx1119basic_ostringstream",
    "_ZNSt7__cxx1119basic_istringstream", "_ZNSt7__cxx1115basic_stringbuf",
    "_ZNKSt7__cxx1115basic_stringbuf", "_ZNKSt7__cxx1118basic_stringstream",
    "_ZNKSt7__cxx1119basic_ostringstream",
    "_ZNSo", "_ZNKSo", "_ZStls", "_ZSt4endl", "_ZSt16__ostream_insert", "_ZNSt8ios_base",
    "_ZNKSt8ios_base", "_ZNSt9basic_ios", "_ZNKSt9basic_ios", "_ZNKSt5ctype", "_ZNSt6locale",
    "_ZNKSt6locale", "_ZNSt15basic_streambuf", "_ZSt5flush",
    "_ZNSt8__detail15_List_node_base", "_ZNKSt8__detail20_Prime_rehash_policy",
    "_ZNSt8__detail20_Prime_rehash_policy", "_ZNSt3pmr",
};

// Parts of names refused even under an allowed prefix: files, threads, clocks, entropy.
const std::string_view kRefusedParts[] = {"thread", "chrono", "filesystem", "fstream", "filebuf",
                                          "random_device", "__basic_file"};

bool allowed_from_runtime(std::string_view n) {
  if (kNames.count(n)) return true;
  // std::__throw_length_error and friends: _ZSt<len>__throw_...
  if (n.starts_with("_ZSt") && n.find("__throw_") != std::string_view::npos) return true;
  if (n.starts_with("_ZSt") && n.find("_Rb_tree") != std::string_view::npos) return true;
  for (auto p : kPrefixes)
    if (n.starts_with(p)) return true;
  return false;
}

}  // namespace

std::string demangle(const std::string& name) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> d(
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && d ? std::string(d.get()) : name;
}

std::optional<std::string> check_kernel_imports(const ElfImage& img,
                                                const std::set<std::string, std::less<>>& extra) {
  std::vector<std::string> refused;
  std::string first_from;
  for (const auto& imp : img.imports) {
    std::string_view n = imp.name;
    if (n == "__cxa_thread_atexit" || n == "__cxa_thread_atexit_impl")
      return "the library registers destructors of thread_local objects (code that runs when "
             "threads end): use plain arrays or a function-local static instead of a "
             "thread_local object with a destructor";
    bool ok;
    if (kRefused.count(n))
      ok = false;
    else if (kLibraries.count(imp.library) || extra.count(imp.library))
      ok = true;
    else if (kNames.count(n))
      ok = true;
    else {
      ok = allowed_from_runtime(n);
      for (auto part : kRefusedParts) ok = ok && n.find(part) == std::string_view::npos;
    }
    if (ok) continue;
    std::string shown = demangle(imp.name);
    if (shown != imp.name) shown += " (" + imp.name + ")";
    if (refused.empty())
      first_from = imp.library.empty() ? "no linked library (it would be looked up in the "
                                         "process that loads the kernel)"
                                       : imp.library;
    if (refused.size() < 8) refused.push_back("`" + shown + "`");
  }
  if (refused.empty()) return std::nullopt;
  std::string names;
  for (const auto& r : refused) names += (names.empty() ? "" : ", ") + r;
  return fmt::format(
      "the library imports {} (the first from {}), which {} not on the kernels' import "
      "allowlist: a kernel may call the math library, OpenMP, memory allocation and copies "
      "(malloc, free, memcpy, new, delete), printf-style output, and the C++ runtime for "
      "exceptions, strings and containers; not files, processes, clocks, threads, signals, the "
      "environment, symbol lookup (dlsym, dl_iterate_phdr) or other libraries. Remove the call",
      names, first_from, refused.size() > 1 ? "are" : "is");
}

}  // namespace evk
