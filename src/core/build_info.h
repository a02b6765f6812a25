// Which build this is: the project's version and the commit it was built from, so that every
// run records the build that made it (and a resume by another build is seen).
#pragma once
#include <string>

namespace evk {

const char* build_version();  // "0.2.0", the project() version in CMakeLists.txt
const char* build_commit();   // "1a2b3c4d5e6f", "...-dirty", or "unknown" (no git at build time)
std::string build_string();   // "evokernel 0.2.0 (1a2b3c4d5e6f)"

}  // namespace evk
