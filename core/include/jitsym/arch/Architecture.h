// The CPU architectures jitsym knows, as data in one table: how their code
// is named (LLVM's architecture name, a Linux triple, the ELF machine), the
// frame-pointer unwind rule as DWARF CFI, and the registers a call's first
// arguments are in (the write watch reads write(2)'s and fwrite(3)'s). How each one's
// function entries keep a frame pointer is decoded beside this table
// (src/arch/). No other file names a register or an ELF machine.
//
// Header-only and free of LLVM: the writer library, built into the JIT's own
// process, takes its jitdump's ELF machine from here.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace jitsym {

enum class ArchId { X86_64, AArch64 };

struct Architecture {
  ArchId id;
  std::string_view name;        // LLVM's: a triple's first part
  std::string_view linuxTriple; // for objects when the target names none
  uint16_t elfMachine;
  // The frame-pointer rule: CFA = frame pointer + cfaOffset, the return
  // address at CFA - 8, the caller's frame pointer at CFA - 16 (x86-64's
  // push rbp; mov rbp, rsp, aarch64's frame record stp x29, x30).
  uint8_t framePointerRegister;  // DWARF register numbers
  uint8_t returnAddressRegister; // the CIE's return address column
  uint8_t stackPointerRegister;
  uint8_t cfaOffset;
  uint8_t codeAlignment; // CIE factors
  int8_t dataAlignment;
  // LLDB's names of the registers holding a call's first four integer
  // arguments (SysV x86-64: rdi, rsi, rdx, rcx; AAPCS64: x0 to x3).
  std::array<std::string_view, 4> argumentRegisters;
  // LLVM MC's names of the stack pointer, the frame pointer and the link
  // register, if any (the entry decoder).
  std::string_view mcStackPointer, mcFramePointer, mcLinkRegister;
  // Whether LLDB unwinds a function's innermost frame by its FDE even at the
  // function's first instructions, before the prologue has made the frame
  // (aarch64); the FDE must then describe the prologue. Where not (x86-64),
  // LLDB analyses the innermost frame's instructions itself.
  bool fdeHoldsAtEntry;
};

inline constexpr Architecture kX86_64{ArchId::X86_64,
                                      "x86_64",
                                      "x86_64-pc-linux-gnu",
                                      62 /* EM_X86_64 */,
                                      6 /* rbp */,
                                      16 /* rip */,
                                      7 /* rsp */,
                                      16,
                                      1,
                                      -8,
                                      {"rdi", "rsi", "rdx", "rcx"},
                                      "RSP",
                                      "RBP",
                                      "",
                                      false};

inline constexpr Architecture kAArch64{ArchId::AArch64,
                                       "aarch64",
                                       "aarch64-unknown-linux-gnu",
                                       183 /* EM_AARCH64 */,
                                       29 /* x29 */,
                                       30 /* x30, the link register */,
                                       31 /* sp */,
                                       16,
                                       4,
                                       -8,
                                       {"x0", "x1", "x2", "x3"},
                                       "SP",
                                       "FP",
                                       "LR",
                                       true};

inline constexpr std::array<const Architecture *, 2> kArchitectures = {&kX86_64, &kAArch64};

// The architecture of a triple ("aarch64-unknown-linux-gnu"; "arm64" and
// "amd64" as LLDB and other tools spell them), or of an ELF machine; null
// when jitsym knows none.
inline const Architecture *architectureOfTriple(std::string_view triple) {
  const std::string_view arch = triple.substr(0, triple.find('-'));
  if (arch == "arm64")
    return &kAArch64;
  if (arch == "amd64")
    return &kX86_64;
  for (const Architecture *known : kArchitectures)
    if (known->name == arch)
      return known;
  return nullptr;
}

inline const Architecture *architectureOfElfMachine(uint16_t machine) {
  for (const Architecture *known : kArchitectures)
    if (known->elfMachine == machine)
      return known;
  return nullptr;
}

// The architecture part of a triple for code of an ELF machine, for naming
// (a jitdump's architecture, the triple `jitsym convert` writes for it),
// also of machines jitsym writes no objects for; empty for one it cannot name.
inline std::string_view tripleArchOfElfMachine(uint32_t machine) {
  struct Named {
    uint16_t machine;
    std::string_view arch;
  };
  static constexpr Named kNamed[] = {
      {62, "x86_64"},   {3, "i386"},        {183, "aarch64"},     {40, "arm"},
      {243, "riscv64"}, {21, "powerpc64le"}, {22, "s390x"},       {258, "loongarch64"},
      {8, "mips64el"}};
  for (const Named &named : kNamed)
    if (named.machine == machine)
      return named.arch;
  return {};
}

// What this code is compiled for (the writer's jitdump header, the plugin's
// default when a target names no triple).
constexpr const Architecture &hostArchitecture() {
#if defined(__x86_64__)
  return kX86_64;
#elif defined(__aarch64__)
  return kAArch64;
#else
#error "jitsym: add this architecture to jitsym/arch/Architecture.h"
#endif
}

} // namespace jitsym
