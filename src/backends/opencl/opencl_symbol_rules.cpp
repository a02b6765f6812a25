#include "backends/opencl/opencl_symbol_rules.h"

#include <fmt/format.h>

#include <string_view>
#include <vector>

namespace evk {
namespace {

struct Forbidden {
  std::string_view prefix;
  std::string_view why;
};

// Matched as prefixes of the undefined (imported) names; C++ names are mangled, so clBLAS and
// CLBlast are caught by their C entry points and their mangled namespaces.
const std::vector<Forbidden> kOpenclForbidden = {
    {"clEnqueueNativeKernel", "native kernels run host code on the device's threads"},
    {"clCreateProgramWithBinary",
     "prebuilt programs (the kernel must come from the R\"evk_cl( string)"},
    {"clCreateProgramWithIL",
     "prebuilt programs (the kernel must come from the R\"evk_cl( string)"},
    {"clCreateProgramWithBuiltInKernels", "vendor built-in kernels"},
    {"clSetEventCallback", "callbacks run host code on the runtime's threads"},
    {"clSetMemObjectDestructorCallback", "callbacks run host code on the runtime's threads"},
    {"clblas", "clBLAS (write the kernel yourself)"},
    {"CLBlast", "CLBlast (write the kernel yourself)"},
    {"_ZN7clblast", "CLBlast (write the kernel yourself)"},
};

}  // namespace

std::optional<std::string> check_opencl_symbols(const SymbolTables& t) {
  if (auto bad = check_cpu_symbols(t)) return bad;
  for (const auto& s : parse_nm(t.imported))
    for (const auto& f : kOpenclForbidden)
      if (std::string_view(s.name).starts_with(f.prefix))
        return fmt::format("the library calls `{}`, which OpenCL kernels may not use: {}", s.name,
                           f.why);
  return std::nullopt;
}

}  // namespace evk
