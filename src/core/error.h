// Error types shared by every module. A UsageError is the user's to fix (bad flag, missing
// file, bad value): the CLI prints it on one line and exits with 2. Anything else is an
// Error with context, exit 1.
#pragma once
#include <stdexcept>
#include <string>

namespace evk {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct UsageError : Error {
  using Error::Error;
};

// "what failed: why" with the errno text appended.
[[noreturn]] void throw_errno(const std::string& what);

}  // namespace evk
