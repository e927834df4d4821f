// Call frame information from a JIT's .eh_frame, as jitdump CODE_UNWINDING_INFO
// carries it (V8 writes it for TurboFan code), parsed as a pure function over
// bytes with LLVM's bounds-checked DWARF extractor.
//
// The CFA programs are kept as bytes: .eh_frame and .debug_frame encode them
// alike, so they reach LLDB in a .debug_frame unchanged (DebugObject.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "jitsym/formats/JitdumpParser.h"
#include "llvm/Support/Error.h"

namespace jitsym {

// One FDE, with what it needs of its CIE.
struct CallFrameInfo {
  uint64_t start = 0; // the code it covers, [start, end)
  uint64_t end = 0;
  uint64_t codeAlignment = 1;
  int64_t dataAlignment = 0;
  uint64_t returnAddressRegister = 0;
  std::string initialInstructions; // the CIE's CFA program
  std::string instructions;        // the FDE's CFA program
};

// Parses a little-endian 64-bit .eh_frame that lies at `address` in memory
// (pc-relative pointers count from there). A zero-length entry or the end of
// `bytes` ends it. Every CFA program is checked to decode (LLVM's CFIProgram);
// DW_CFA_set_loc, whose operand differs between .eh_frame and .debug_frame, is
// refused. Errors give the byte offset in `bytes` and the problem.
llvm::Expected<std::vector<CallFrameInfo>> parseEhFrame(std::string_view bytes, uint64_t address);

// One row of a function's unwind table: from `address` on, CFA = the
// register (DWARF number) + offset, and registers saved at offsets from the
// CFA (the return address's included).
struct CfaRow {
  uint64_t address = 0;
  uint32_t cfaRegister = UINT32_MAX;
  int64_t cfaOffset = 0;
  std::vector<std::pair<uint32_t, int64_t>> saved;
};

// The rows `frame`'s CIE and FDE programs make, in order; nullopt when they
// hold what is not followed here (expressions, registers kept in registers):
// the subset compilers emit for ordinary functions.
std::optional<std::vector<CfaRow>> cfaRowsOf(const CallFrameInfo &frame);

// The .eh_frame part of CODE_UNWINDING_INFO: empty when the record says the code
// has none (V8 then writes an empty .eh_frame_hdr and mapped_size 0).
std::string_view ehFrameOf(const JitUnwindingInfo &info);

// Where a producer's .eh_frame takes the code to be: right after it, 8-byte
// aligned, as in the ELF `perf inject --jit` builds (V8 encodes its FDEs' code
// address relative to that place).
constexpr uint64_t ehFrameAddressAfterCode(uint64_t codeAddress, uint64_t codeSize) {
  return codeAddress + ((codeSize + 7) & ~uint64_t(7));
}

} // namespace jitsym
