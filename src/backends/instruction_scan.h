// Defence in depth on native code: the compiled library's executable sections, disassembled
// (objdump -d), must hold no instruction that a kernel never needs: system calls made without
// libc (syscall, sysenter, int 0x80: the symbol rules cannot see them), protection-key and
// time-stamp reads and writes (wrpkru, rdtsc: a kernel that reads the clock can tell a timed
// call). The sandbox still stops what gets past; this names the cause before anything runs.
#pragma once
#include <filesystem>
#include <optional>
#include <string>

namespace evk {

// nullopt when the library is clean; else the feedback naming the instruction and where it is.
// Throws Error when the library cannot be disassembled (objdump missing or failing).
std::optional<std::string> check_instructions(const std::filesystem::path& library);

}  // namespace evk
