// Where an Erlang process's stack leads back to its scheduler's C stack, as
// unwind rules for two pieces of BEAM's JIT code (BeamAsm, x86-64, OTP 25).
//
// BEAM runs Erlang code on each process's own stack (rsp is the Erlang stack
// pointer E); rbx holds `registers`, inside the scheduler's register block
// that the stub `global::process_main` aligns on the C stack when its C
// caller (sched_thread_func, through the C function process_main, which
// jumps to it) enters it, and which is the C stack while C code runs. With
// frame pointers (+JPperf map) the chain of Erlang frames ends at the bottom
// of the process's stack, whose return address is the entry of
// `erts_beamasm:normal_exit/0`; nothing there leads to the C stack. So:
//  - normal_exit/0 (and its CodeInfoPrologue, where a lookup at the return
//    address minus one lands): CFA = rbx - (the block's offset), the stub's
//    stack pointer, and the caller is the stub where it dispatches into
//    Erlang code (after its one `jmp *%rax`); rbx stays.
//  - the stub after its prologue: its return address is at one of four
//    slots above the block (the C stack was 16-byte aligned at the call and
//    the block is 64-byte aligned), the one that holds the return address of
//    the one call of process_main in beam's code; the C caller's rbx is the
//    word below it (pushed by C process_main).
// Every number comes from the stub's own instructions and beam's code, not
// from a table per OTP version. Facts and the hand check:
// docs/DESIGN.md, "BEAM's stacks".
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "jitsym/formats/EhFrameParser.h"

namespace jitsym {

// What the stub's prologue says: `sub $frame,%rsp; and $-64,%rsp;
// mov %rsp,(%rdi); lea block(%rsp),%rbx`, and where it dispatches.
struct BeamProcessMain {
  uint64_t start = 0, end = 0;
  uint64_t bodyStart = 0;  // after the lea: rbx is `registers` from here
  int64_t frameBytes = 0;  // the sub's immediate
  int64_t blockOffset = 0; // rbx - the aligned block
  uint64_t resume = 0;     // just after its `jmp *%rax`
};
std::optional<BeamProcessMain> decodeBeamProcessMain(std::string_view code, uint64_t start);

// The return address of the one `call rel32` to `target` in `text` (at
// `textAddress`); none, or more than one, gives nullopt.
std::optional<uint64_t> returnAddressOfOnlyCall(std::string_view text, uint64_t textAddress,
                                                uint64_t target);

// The rules above: for the stub, and for a piece of normal_exit's code.
CallFrameInfo beamProcessMainFrame(const BeamProcessMain &stub, uint64_t returnAddress);
CallFrameInfo beamProcessExitFrame(uint64_t start, uint64_t end, const BeamProcessMain &stub);

// Without frame pointers (+JPperf dump, OTP 25) BEAM publishes no frame
// sizes, and LLDB's analysis of an Erlang function's instructions fails at
// its inline runtime calls, which move rsp. But the Erlang stack holds only
// tagged terms (their low two bits never both 0 there) and return addresses
// (4-byte aligned): a frame's return address is the first word with its low
// two bits 0 from the stack pointer up. On the C stack (rsp = the block, in
// C called from this code) the Erlang stack pointer is elsewhere: for a stub
// that saved it into the process (`savedStack`: the offset in the process,
// r13, its `mov off(%r13),%rsp` restores from), there; for an Erlang
// function's inline call, in rbp.
CallFrameInfo beamScanFrame(uint64_t start, uint64_t end, int64_t blockOffset,
                            std::optional<int64_t> savedStack);
// The offset of a stub's one `mov disp8(%r13),%rsp` (its return from C to
// the Erlang stack); none, or two different ones, gives nullopt.
std::optional<int64_t> decodeBeamSavedStack(std::string_view code);

// Whether BEAM keeps frame pointers, by its BIF-call stub's code (global::
// call_light_bif_shared): with them it restores rbp from the process after
// its call of C (`mov d8(%r13),%rbp`) as well as rsp.
bool beamStubKeepsFramePointers(std::string_view code);

// "$global::process_main", "global::process_main" (a map's and a jitdump's
// spellings); "erts_beamasm:normal_exit/0" and its "-CodeInfoPrologue".
bool isBeamProcessMain(std::string_view name);
bool isBeamNormalExit(std::string_view name);
bool isBeamBifCallStub(std::string_view name);

} // namespace jitsym
