// A jitdump's code bytes say which functions keep a frame pointer (offline
// export, where no process memory is).
#include "jitsym/symbols/JitdumpEntries.h"

#include <gtest/gtest.h>

#include <cstring>

#include "jitsym/formats/JitdumpWriter.h"
#include "llvm/BinaryFormat/ELF.h"

using namespace jitsym;

namespace {

const std::string kKept("\x55\x48\x89\xe5\x5d\xc3", 6);          // push rbp; mov rbp, rsp
const std::string kNotKept("\x48\x83\xec\x18\x48\x83\xc4\x18\xc3", 9); // sub rsp, 24

// stp x29, x30, [sp, #-16]!; mov x29, sp; ldp x29, x30, [sp], #16; ret
const std::string kKeptAArch64("\xfd\x7b\xbf\xa9\xfd\x03\x00\x91\xfd\x7b\xc1\xa8\xc0\x03\x5f\xd6",
                               16);
// sub sp, sp, #32; add sp, sp, #32; ret
const std::string kNotKeptAArch64("\xff\x83\x00\xd1\xff\x83\x00\x91\xc0\x03\x5f\xd6", 12);

std::string dumpOf(uint32_t machine, const std::string &kept = kKept,
                   const std::string &notKept = kNotKept) {
  std::string out;
  appendJitdumpHeader(out, {machine, 42, 1});
  appendCodeLoad(out, 2, {42, 42, 0x1000, 1, "kept", kept});
  appendCodeLoad(out, 3, {42, 42, 0x2000, 2, "notkept", notKept});
  return out;
}

void appendMove(std::string &out, uint64_t from, uint64_t to) {
  jr_code_move move{};
  move.p.id = uint32_t(JitdumpRecordId::CodeMove);
  move.p.total_size = sizeof(move);
  move.p.timestamp = 4;
  move.pid = move.tid = 42;
  move.old_code_addr = from;
  move.new_code_addr = to;
  move.code_size = kNotKept.size();
  move.code_index = 2;
  out.append(reinterpret_cast<const char *>(&move), sizeof(move));
}

} // namespace

TEST(JitdumpEntries, FromTheCodeBytesOfEachLoad) {
  const JitdumpEntries entries = JitdumpEntries::read(dumpOf(llvm::ELF::EM_X86_64));
  EXPECT_EQ(entries.at(0x1000).framePointer, FramePointer::Kept);
  EXPECT_EQ(entries.at(0x2000).framePointer, FramePointer::NotKept);
  EXPECT_EQ(entries.at(0x3000).framePointer, FramePointer::Unknown); // no code there
  EXPECT_EQ(entries.probe()(0x2000, 0).framePointer, FramePointer::NotKept);
}

TEST(JitdumpEntries, AArch64CodeIsDecodedAsSuch) {
  const JitdumpEntries entries =
      JitdumpEntries::read(dumpOf(llvm::ELF::EM_AARCH64, kKeptAArch64, kNotKeptAArch64));
  EXPECT_EQ(entries.at(0x1000).framePointer, FramePointer::Kept);
  EXPECT_EQ(entries.at(0x2000).framePointer, FramePointer::NotKept);
}

TEST(JitdumpEntries, LaterLoadsAndMovesWin) {
  std::string dump = dumpOf(llvm::ELF::EM_X86_64);
  appendCodeLoad(dump, 5, {42, 42, 0x1000, 3, "replaced", kNotKept});
  appendMove(dump, 0x2000, 0x4000);
  const JitdumpEntries entries = JitdumpEntries::read(dump);
  EXPECT_EQ(entries.at(0x1000).framePointer, FramePointer::NotKept);
  EXPECT_EQ(entries.at(0x2000).framePointer, FramePointer::Unknown);
  EXPECT_EQ(entries.at(0x4000).framePointer, FramePointer::NotKept);
}

TEST(JitdumpEntries, CutOffOrForeignFilesSayWhatTheyCan) {
  const std::string dump = dumpOf(llvm::ELF::EM_X86_64);
  // Cut inside the second record: the first still speaks, the second is
  // not there yet.
  const JitdumpEntries cut = JitdumpEntries::read(std::string_view(dump).substr(0, dump.size() - 4));
  EXPECT_EQ(cut.at(0x1000).framePointer, FramePointer::Kept);
  EXPECT_EQ(cut.at(0x2000).framePointer, FramePointer::Unknown);
  // Code of an architecture jitsym does not know, not a jitdump, nothing at all.
  EXPECT_EQ(JitdumpEntries::read(dumpOf(llvm::ELF::EM_RISCV)).size(), 0u);
  EXPECT_EQ(JitdumpEntries::read("7f0000001000 10 not_a_jitdump\n").size(), 0u);
  EXPECT_EQ(JitdumpEntries::read("").size(), 0u);
}
