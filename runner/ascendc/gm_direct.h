// Loads and stores a kernel makes through __gm__ pointers (`__gm__ float* p = (__gm__ float*)x;
// v = p[i]; p[j] = w;`): legal Ascend C, each one a scalar GM access of the AI Core's scalar
// unit, charged like GlobalTensor::GetValue/SetValue and recorded in the API trace (trace.h's
// GmLoad and GmStore rows) so that the replay sees them too.
//
// How an access is caught. A GM device address lies in a PROT_NONE reservation; the bytes are
// the emulator's (emulator.h). The first touch of a reservation page faults (SIGSEGV); the
// handler makes that page readable and writable, copies the emulator's bytes into it, sets the
// trap flag (EFLAGS.TF) in the interrupted context and returns, so that the faulting
// instruction runs once on the copy and traps (SIGTRAP). The trap handler then compares the
// page with the emulator's bytes: a page that changed is a store (the changed bytes, widened to
// the instruction's access width, go to Emulator::gm_store), an unchanged one a load
// (Emulator::gm_load with the bytes the instruction could have read); it scrubs the page and
// makes it PROT_NONE again. An instruction that straddles pages faults once per page before it
// traps; a vectorised access is one instruction of several elements, charged by its width (the
// access width is decoded from the instruction's prefixes and opcode, x86_access_width). A
// read-modify-write instruction (`add [mem], eax`) is charged as its store alone, and a store of
// the bytes already there as a load: the page cannot tell them apart.
//
// Why a copy and not a second mapping of the same bytes: the reservation never holds the truth.
// A store that reaches a reservation page any other way (the kernel's own mprotect, a store
// after the diff) lands in a copy that the next access overwrites and that no output is read
// from; only what went through gm_store changes global memory, in the runner and in the replay.
// Threads could read an open page in that one-instruction window; the Ascend C runner's sandbox
// allows no threads (SandboxOptions::threads), as an AI Core kernel has none.
//
// The handlers run on the kernel's own access instruction (a synchronous signal), so the code
// they interrupt holds none of the emulator's state and no libc lock, unless the kernel handed
// a GM address to the runner's API or to libc: a fault inside a traced API call is refused
// (ApiScope), and one inside libc (free() of a GM pointer, say) can only deadlock the kernel's
// own run into its time limit.
#pragma once

namespace evk::runner::ascendc::gm_direct {

// Installs the SIGSEGV/SIGBUS/SIGTRAP handlers (on an alternate stack). `refuse` is called,
// from the handler, for a fault on a device address that is not a direct access (an API call's
// argument points into GM); it must not return. Any other fault crashes as before.
void install(void (*refuse)());

// Held by every traced API call (trace.h): a GM fault while one is held is refused.
inline int api_depth = 0;
class ApiScope {
 public:
  ApiScope() { ++api_depth; }
  ~ApiScope() { --api_depth; }
  ApiScope(const ApiScope&) = delete;
  ApiScope& operator=(const ApiScope&) = delete;
};

// The bytes an x86-64 instruction at `ip` reads or writes through its memory operand (1 to 64),
// or 0 when the opcode is not one this decoder knows.
unsigned x86_access_width(const unsigned char* ip);

}  // namespace evk::runner::ascendc::gm_direct
