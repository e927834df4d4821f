// Unwind tables from CODE_UNWINDING_INFO: the .eh_frame parser on V8's real
// bytes and on hand-made edge cases, the .debug_frame written from its frames
// read back by LLVM's own parser, and the tables following their code.
#include "jitsym/objects/DebugFrame.h"
#include "jitsym/objects/DebugObject.h"
#include "jitsym/formats/EhFrameParser.h"
#include "jitsym/symbols/JitdumpSymbols.h"
#include "jitsym/symbols/UnwindTables.h"

#include <gtest/gtest.h>

#include "LlvmAcrossVersions.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/DebugInfo/DWARF/DWARFContext.h"
#include "llvm/DebugInfo/DWARF/DWARFDataExtractor.h"
#include "llvm/DebugInfo/DWARF/DWARFDebugFrame.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/Casting.h"

using namespace jitsym;

namespace {

// V8 11.3's (Node 20) .eh_frame for a TurboFan function of 0x20c bytes, with
// its .eh_frame_hdr, from a real `node --perf-prof` jitdump.
const std::string kV8Unwinding = llvm::fromHex(
    "1800000000000000037a4c520001781002ff1b0c07089001000000002000000020000000"
    "ccfdffff0c020000004f0e108602430d06024b0d07410e08520c061000000000011b033b"
    "b8ffffff01000000acfdffffd8ffffff");
constexpr uint64_t kV8CodeSize = 0x20c, kV8HeaderSize = 20;

std::string v8EhFrame() { return kV8Unwinding.substr(0, kV8Unwinding.size() - kV8HeaderSize); }

std::string u32(uint32_t v) { return std::string(reinterpret_cast<const char *>(&v), 4); }
std::string u64(uint64_t v) { return std::string(reinterpret_cast<const char *>(&v), 8); }
// A CIE or FDE: length, then `body` (id first).
std::string entry(const std::string &body) { return u32(uint32_t(body.size())) + body; }

std::string errorOf(llvm::Expected<std::vector<CallFrameInfo>> parsed) {
  if (parsed)
    return "no error";
  return llvm::toString(parsed.takeError());
}

} // namespace

TEST(EhFrame, V8TableCoversItsCodeWhereverTheCodeLies) {
  for (uint64_t code : {uint64_t(0x10000), uint64_t(0x7f38d37e4e40)}) {
    auto frames = parseEhFrame(v8EhFrame(), ehFrameAddressAfterCode(code, kV8CodeSize));
    ASSERT_TRUE(bool(frames)) << llvm::toString(frames.takeError());
    ASSERT_EQ(frames->size(), 1u);
    const CallFrameInfo &f = (*frames)[0];
    EXPECT_EQ(f.start, code);
    EXPECT_EQ(f.end, code + kV8CodeSize);
    EXPECT_EQ(f.codeAlignment, 1u);
    EXPECT_EQ(f.dataAlignment, -8);
    EXPECT_EQ(f.returnAddressRegister, 16u);
    EXPECT_EQ(llvm::toHex(f.initialInstructions, true), "0c0708900100000000");
    EXPECT_EQ(llvm::toHex(f.instructions, true), "4f0e108602430d06024b0d07410e08520c0610");
  }
}

TEST(EhFrame, TheCodeOfAnEmptyRecordIsNone) {
  JitUnwindingInfo empty{20, 20, 0, std::string_view(kV8Unwinding).substr(68)};
  EXPECT_TRUE(ehFrameOf(empty).empty());
  JitUnwindingInfo v8{88, 20, 88, kV8Unwinding};
  EXPECT_EQ(ehFrameOf(v8), v8EhFrame());
}

TEST(EhFrame, AugmentationsAndVersionOne) {
  // Version 1 with no augmentation: absolute 8-byte FDE addresses.
  std::string plain = entry(u32(0) + std::string("\x01\0\x01\x78\x10\x0c\x07\x08", 8));
  plain += entry(u32(uint32_t(plain.size() + 4)) + u64(0x5000) + u64(0x40) + "\x41\x0e\x10");
  auto frames = parseEhFrame(plain, 0);
  ASSERT_TRUE(bool(frames)) << llvm::toString(frames.takeError());
  ASSERT_EQ(frames->size(), 1u);
  EXPECT_EQ((*frames)[0].start, 0x5000u);
  EXPECT_EQ((*frames)[0].end, 0x5040u);
  EXPECT_EQ((*frames)[0].instructions, "\x41\x0e\x10");

  // "zPLR": a personality pointer (udata4), an LSDA encoding, pcrel|sdata4
  // FDE pointers, and FDE augmentation data (the LSDA) that is skipped.
  std::string cie = u32(0) + std::string("\x03zPLR\0\x01\x78\x10", 9);
  const std::string augmentation = std::string("\x03", 1) + u32(0x1234) + "\x1b\x1b";
  cie += char(augmentation.size()) + augmentation + std::string("\x0c\x07\x08", 3);
  std::string data = entry(cie);
  const uint32_t back = uint32_t(data.size() + 4);
  const uint64_t address = 0x100000;
  const uint64_t field = address + data.size() + 8; // where the pc-relative start is
  std::string fde = u32(back) + u32(uint32_t(0x2000 - field)) + u32(0x80);
  fde += std::string("\x04", 1) + u32(0) + "\x41";
  data += entry(fde) + u32(0);
  frames = parseEhFrame(data, address);
  ASSERT_TRUE(bool(frames)) << llvm::toString(frames.takeError());
  ASSERT_EQ(frames->size(), 1u);
  EXPECT_EQ((*frames)[0].start, 0x2000u);
  EXPECT_EQ((*frames)[0].end, 0x2080u);
  EXPECT_EQ((*frames)[0].instructions, "\x41");
}

TEST(EhFrame, ErrorsNameTheOffsetAndTheProblem) {
  const std::string cie = entry(u32(0) + std::string("\x01\0\x01\x78\x10", 5));
  EXPECT_EQ(errorOf(parseEhFrame(cie.substr(0, 3), 0)), "eh_frame offset 0: entry length cut short");
  EXPECT_EQ(errorOf(parseEhFrame(cie.substr(0, 8), 0)),
            "eh_frame offset 0: entry of 9 bytes runs past the end (8 bytes)");
  EXPECT_EQ(errorOf(parseEhFrame(entry(u32(0) + std::string("\x02\0\x01\x78\x10", 5)), 0)),
            "eh_frame offset 8: CIE version 2 (1 or 3 expected)");
  EXPECT_EQ(errorOf(parseEhFrame(entry(u32(0) + std::string("\x01" "eh\0\x01\x78\x10", 7)), 0)),
            "eh_frame offset 9: unsupported CIE augmentation \"eh\"");
  EXPECT_EQ(errorOf(parseEhFrame(cie + entry(u32(99) + u64(0) + u64(1)), 0)),
            "eh_frame offset 13: FDE points to no CIE (back 99 bytes)");
  // DW_CFA_set_loc's operand is encoded differently in .debug_frame.
  const std::string setLoc = std::string("\x01", 1) + u64(0x10);
  EXPECT_EQ(errorOf(parseEhFrame(cie + entry(u32(17) + u64(0) + u64(1) + setLoc), 0)),
            "eh_frame offset 37: DW_CFA_set_loc is not supported");
  EXPECT_EQ(errorOf(parseEhFrame(cie + entry(u32(17) + u64(0) + u64(1) + "\x3f"), 0)),
            "eh_frame offset 37: bad CFA instruction: invalid extended CFI opcode 0x3f");
  EXPECT_EQ(errorOf(parseEhFrame(cie + entry(u32(17) + u64(~0ull) + u64(2)), 0)),
            "eh_frame offset 21: FDE code range wraps around");
}

TEST(DebugFrame, LlvmReadsBackWhatIsWritten) {
  auto v8 = parseEhFrame(v8EhFrame(), ehFrameAddressAfterCode(0x10000, kV8CodeSize));
  ASSERT_TRUE(bool(v8));
  CallFrameInfo second = (*v8)[0];
  second.start = 0x20000;
  second.end = 0x20100;
  CallFrameInfo other = second; // another CIE: a second one is written
  other.start = 0x30000;
  other.end = 0x30010;
  other.dataAlignment = -4;
  const std::string section = buildDebugFrame({&(*v8)[0], &second, &other});

  llvm::DWARFDebugFrame reader(llvm::Triple::x86_64);
  llvm::Error err = reader.parse(llvm::DWARFDataExtractor(section, true, 8));
  ASSERT_FALSE(err) << llvm::toString(std::move(err));
  std::vector<const llvm::dwarf::FDE *> fdes;
  size_t cies = 0;
  for (const llvm::dwarf::FrameEntry &e : reader.entries()) {
    if (const auto *fde = llvm::dyn_cast<llvm::dwarf::FDE>(&e))
      fdes.push_back(fde);
    else
      ++cies;
  }
  EXPECT_EQ(cies, 2u);
  ASSERT_EQ(fdes.size(), 3u);
  EXPECT_EQ(fdes[0]->getInitialLocation(), 0x10000u);
  EXPECT_EQ(fdes[0]->getAddressRange(), kV8CodeSize);
  EXPECT_EQ(fdes[1]->getInitialLocation(), 0x20000u);
  EXPECT_EQ(fdes[0]->getLinkedCIE(), fdes[1]->getLinkedCIE());
  EXPECT_NE(fdes[0]->getLinkedCIE(), fdes[2]->getLinkedCIE());
  EXPECT_EQ(fdes[2]->getLinkedCIE()->getDataAlignmentFactor(), -4);

  // The rows LLVM computes are V8's: at +15 (after push rbp) CFA = rsp+16,
  // from +18 (after mov rbp, rsp) CFA = rbp+16.
  auto table = jitsym::test_support::unwindTableOf(fdes[0]);
  ASSERT_TRUE(bool(table)) << llvm::toString(table.takeError());
  struct Row {
    uint64_t offset;
    uint32_t cfaRegister;
    int32_t cfaOffset;
    bool operator==(const Row &o) const {
      return offset == o.offset && cfaRegister == o.cfaRegister && cfaOffset == o.cfaOffset;
    }
  };
  std::vector<Row> rows;
  for (const llvm::dwarf::UnwindRow &row : *table)
    rows.push_back({row.getAddress() - 0x10000, row.getCFAValue().getRegister(),
                    row.getCFAValue().getOffset()});
  constexpr uint32_t rsp = 7, rbp = 6;
  ASSERT_GE(rows.size(), 3u);
  EXPECT_TRUE(rows[0] == (Row{0, rsp, 8}));
  EXPECT_TRUE(rows[1] == (Row{15, rsp, 16}));
  EXPECT_TRUE(rows[2] == (Row{18, rbp, 16}));
}

TEST(UnwindTables, FollowTheirCodeThroughMovesAndReplacement) {
  SymbolTable table;
  LineTables lines;
  UnwindTables unwind;
  JitdumpSymbolsOptions options;
  options.unwind = &unwind;
  options.path = "jit-7.dump";
  JitdumpSymbols sink(table, lines, options);
  auto unwinding = [&](const std::string &data, uint64_t offset) {
    JitUnwindingInfo info{data.size(), kV8HeaderSize, data.size(), data};
    sink.onRecord({uint32_t(JitdumpRecordId::CodeUnwindingInfo), 0, 0, info}, offset);
  };
  auto load = [&](uint64_t address, uint64_t size, const char *name) {
    JitCodeLoad l;
    l.codeAddress = address;
    l.codeSize = size;
    l.name = name;
    sink.onRecord({uint32_t(JitdumpRecordId::CodeLoad), 0, 0, l}, 0);
  };

  unwinding(kV8Unwinding, 40);
  load(0x10000, kV8CodeSize, "JS:*f");
  ASSERT_NE(unwind.frames(0x10000), nullptr);
  EXPECT_EQ(unwind.frames(0x10000)->at(0).end, 0x10000 + kV8CodeSize);

  load(0x20000, 0x40, "JS:~g"); // the record was for the load before: none here
  EXPECT_EQ(unwind.frames(0x20000), nullptr);

  JitCodeMove move;
  move.oldAddress = 0x10000;
  move.newAddress = 0x50000;
  move.codeSize = kV8CodeSize;
  sink.onRecord({uint32_t(JitdumpRecordId::CodeMove), 0, 0, move}, 0);
  EXPECT_EQ(unwind.frames(0x10000), nullptr);
  ASSERT_NE(unwind.frames(0x50000), nullptr);
  EXPECT_EQ(unwind.frames(0x50000)->at(0).start, 0x50000u);
  EXPECT_EQ(unwind.frames(0x50000)->at(0).end, 0x50000 + kV8CodeSize);

  load(0x50000, kV8CodeSize, "JS:^h"); // new code, no table: the old one goes
  EXPECT_EQ(unwind.frames(0x50000), nullptr);

  // Code of another size: V8's FDE then covers other bytes, and is refused.
  unwinding(kV8Unwinding, 4096);
  load(0x60000, 0x100, "JS:*odd");
  EXPECT_EQ(unwind.frames(0x60000), nullptr);
  ASSERT_EQ(sink.diagnostics.size(), 1u);
  EXPECT_EQ(sink.diagnostics[0].str(),
            "jit-7.dump: byte offset 4096: CODE_UNWINDING_INFO: an FDE covers "
            "0x5fef0-0x600fc, outside the code at 0x60000-0x60100 (unwind table skipped)");
}

TEST(UnwindTables, GoWithTheirCodeWhateverReplacesIt) {
  SymbolTable table;
  LineTables lines;
  UnwindTables unwind;
  JitdumpSymbolsOptions options;
  options.unwind = &unwind;
  JitdumpSymbols sink(table, lines, options);
  auto load = [&](uint64_t address, uint64_t size, const char *name, bool withTable) {
    if (withTable) {
      JitUnwindingInfo info{kV8Unwinding.size(), kV8HeaderSize, kV8Unwinding.size(),
                            kV8Unwinding};
      sink.onRecord({uint32_t(JitdumpRecordId::CodeUnwindingInfo), 0, 0, info}, 0);
    }
    JitCodeLoad l;
    l.codeAddress = address;
    l.codeSize = size;
    l.name = name;
    sink.onRecord({uint32_t(JitdumpRecordId::CodeLoad), 0, 0, l}, 0);
  };
  load(0x10000, kV8CodeSize, "JS:*f", true);
  load(0x20000, kV8CodeSize, "JS:*g", true);
  load(0x30000, kV8CodeSize, "JS:*h", true);
  table.size();
  ASSERT_EQ(unwind.functionCount(), 3u);
  load(0x10010, 0x10, "JS:~other", false); // a later load over f's range
  table.add(0x20008, 0x8, "from a perf map"); // a map line over g's
  table.size();
  EXPECT_EQ(unwind.frames(0x10000), nullptr);
  EXPECT_EQ(unwind.frames(0x20000), nullptr);
  ASSERT_NE(unwind.frames(0x30000), nullptr);
  EXPECT_EQ(unwind.functionCount(), 1u);
}

TEST(UnwindTables, DebugObjectCarriesThemAsDebugFrame) {
  constexpr uint64_t start = 0x7f0000100000, end = 0x7f0000200000, f = start + 0x1000;
  JitTables tables;
  auto frames = parseEhFrame(v8EhFrame(), ehFrameAddressAfterCode(f, kV8CodeSize));
  ASSERT_TRUE(bool(frames));
  tables.unwind.set(f, std::move(*frames));
  UuidBytes id{};
  llvm::Expected<std::string> image = buildDebugObject(
      kX86_64, {start, end}, id, "jit", {{f, f + kV8CodeSize, "JS:*f"}, {f + 0x400, f + 0x500, "JS:^g"}},
      tables);
  ASSERT_TRUE(bool(image)) << llvm::toString(image.takeError());
  auto object = llvm::object::ObjectFile::createObjectFile(llvm::MemoryBufferRef(*image, "d.o"));
  ASSERT_TRUE(bool(object)) << llvm::toString(object.takeError());
  auto dwarf = llvm::DWARFContext::create(**object);
  llvm::Expected<const llvm::DWARFDebugFrame *> debugFrame = dwarf->getDebugFrame();
  ASSERT_TRUE(bool(debugFrame)) << llvm::toString(debugFrame.takeError());
  std::vector<uint64_t> starts;
  for (const llvm::dwarf::FrameEntry &e : (*debugFrame)->entries())
    if (const auto *fde = llvm::dyn_cast<llvm::dwarf::FDE>(&e))
      starts.push_back(fde->getInitialLocation());
  EXPECT_EQ(starts, std::vector<uint64_t>{f});
}
