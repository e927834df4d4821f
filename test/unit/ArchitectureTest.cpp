// The architecture table: found by the names triples and tools give it and by
// ELF machine; unknown ones are refused, not guessed.
#include "jitsym/arch/Architecture.h"

#include <gtest/gtest.h>

#include "llvm/BinaryFormat/ELF.h"

using namespace jitsym;

TEST(Architecture, ByTriple) {
  EXPECT_EQ(architectureOfTriple("x86_64-pc-linux-gnu"), &kX86_64);
  EXPECT_EQ(architectureOfTriple("x86_64-unknown-linux-gnu"), &kX86_64);
  EXPECT_EQ(architectureOfTriple("aarch64-unknown-linux-gnu"), &kAArch64);
  EXPECT_EQ(architectureOfTriple("arm64-apple-macosx"), &kAArch64); // LLDB's spelling on Apple
  EXPECT_EQ(architectureOfTriple("aarch64"), &kAArch64);
  EXPECT_EQ(architectureOfTriple("armv7-unknown-linux-gnueabihf"), nullptr);
  EXPECT_EQ(architectureOfTriple("riscv64-unknown-linux-gnu"), nullptr);
  EXPECT_EQ(architectureOfTriple(""), nullptr);
}

TEST(Architecture, ByElfMachineAsLLVMNamesThem) {
  EXPECT_EQ(architectureOfElfMachine(llvm::ELF::EM_X86_64), &kX86_64);
  EXPECT_EQ(architectureOfElfMachine(llvm::ELF::EM_AARCH64), &kAArch64);
  EXPECT_EQ(architectureOfElfMachine(llvm::ELF::EM_386), nullptr);
  for (const Architecture *arch : kArchitectures)
    EXPECT_EQ(architectureOfTriple(arch->linuxTriple), arch);
}

TEST(Architecture, FramePointerRulesOfTheirABIs) {
  // DWARF numbers of the x86-64 psABI and AAPCS64's DWARF supplement.
  EXPECT_EQ(kX86_64.framePointerRegister, 6);   // rbp
  EXPECT_EQ(kX86_64.returnAddressRegister, 16); // rip
  EXPECT_EQ(kAArch64.framePointerRegister, 29); // x29
  EXPECT_EQ(kAArch64.returnAddressRegister, 30); // x30
}
