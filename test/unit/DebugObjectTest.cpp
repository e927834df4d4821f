// The debug object read back with LLVM's DWARF reader: every function is a
// subprogram, and each address's line is the one the line tables give.
#include "jitsym/objects/DebugObject.h"
#include "jitsym/symbols/SourceFiles.h"

#include <gtest/gtest.h>

#include "LlvmAcrossVersions.h"

#include "llvm/DebugInfo/DIContext.h"
#include "llvm/DebugInfo/DWARF/DWARFContext.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace jitsym;

namespace {

constexpr uint64_t kStart = 0x7f0000100000, kEnd = 0x7f0000200000;

struct Parsed {
  std::string image;
  std::unique_ptr<llvm::object::ObjectFile> object;
  std::unique_ptr<llvm::DWARFContext> dwarf;
};

std::unique_ptr<Parsed> build(const std::vector<DebugFunction> &functions, const JitTables &tables,
                              LinePlausible plausible = nullptr) {
  auto parsed = std::make_unique<Parsed>();
  UuidBytes id{};
  id[0] = 0x42;
  llvm::Expected<std::string> image = buildDebugObject(kX86_64, {kStart, kEnd}, id, "jit", functions, tables, plausible);
  if (!image) {
    ADD_FAILURE() << llvm::toString(image.takeError());
    return nullptr;
  }
  parsed->image = std::move(*image);
  auto object = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(parsed->image, "debug.o"));
  if (!object) {
    ADD_FAILURE() << llvm::toString(object.takeError());
    return nullptr;
  }
  parsed->object = std::move(*object);
  parsed->dwarf = llvm::DWARFContext::create(*parsed->object);
  return parsed;
}

llvm::DILineInfo lineAt(Parsed &p, uint64_t address) {
  return jitsym::test_support::lineOrNone(p.dwarf->getLineInfoForAddress(
      {address, llvm::object::SectionedAddress::UndefSection},
      llvm::DILineInfoSpecifier(llvm::DILineInfoSpecifier::FileLineInfoKind::AbsoluteFilePath,
                                llvm::DILineInfoSpecifier::FunctionNameKind::ShortName)));
}

// The addresses of the line table's rows, and of those that end a prologue.
std::pair<std::vector<uint64_t>, std::vector<uint64_t>> rowAddresses(Parsed &p) {
  std::vector<uint64_t> rows, prologueEnds;
  for (const auto &unit : p.dwarf->compile_units())
    if (const llvm::DWARFDebugLine::LineTable *table = p.dwarf->getLineTableForUnit(unit.get()))
      for (const llvm::DWARFDebugLine::Row &row : table->Rows)
        if (!row.EndSequence) {
          rows.push_back(row.Address.Address);
          if (row.PrologueEnd)
            prologueEnds.push_back(row.Address.Address);
        }
  return {rows, prologueEnds};
}

} // namespace

TEST(DebugObject, LinesAndFunctionsReadBack) {
  JitTables tables;
  LineTables &lines = tables.lines;
  const uint64_t f = kStart + 0x100, g = kStart + 0x400;
  lines.set(f, {{f, 3, 7, "/app/hot.js"}, {f + 0x10, 4, 5, "/app/hot.js"},
                {f + 0x20, 9, 1, "/app/lib.js"}, {f + 0x20, 10, 2, "/app/lib.js"},
                {f + 0x500, 99, 1, "/app/outside.js"}}); // past f's end: dropped
  const std::vector<DebugFunction> functions = {
      {g, g + 0x40, "JS:^g /app/other.js:1:1"}, // no lines, listed first
      {f, f + 0x80, "JS:*f /app/hot.js:3:7"},
  };
  auto parsed = build(functions, tables);
  ASSERT_TRUE(parsed);

  llvm::DILineInfo at = lineAt(*parsed, f + 0x4);
  EXPECT_EQ(at.FileName, "/app/hot.js");
  EXPECT_EQ(at.Line, 3u);
  EXPECT_EQ(at.Column, 7u);
  EXPECT_EQ(at.FunctionName, "JS:*f /app/hot.js:3:7");
  at = lineAt(*parsed, f + 0x10);
  EXPECT_EQ(at.Line, 4u);
  EXPECT_EQ(at.Column, 5u);
  at = lineAt(*parsed, f + 0x7f);
  EXPECT_EQ(at.FileName, "/app/lib.js");
  EXPECT_EQ(at.Line, 10u) << "of two rows at one address, the last";
  at = lineAt(*parsed, g + 0x8);
  EXPECT_EQ(at.Line, 0u) << "g has no lines";
  EXPECT_EQ(at.FunctionName, "JS:^g /app/other.js:1:1");

  unsigned subprograms = 0;
  for (const auto &unit : parsed->dwarf->compile_units())
    for (const auto &die : unit->dies())
      subprograms += die.getTag() == llvm::dwarf::DW_TAG_subprogram;
  EXPECT_EQ(subprograms, 2u);
}

TEST(DebugObject, SectionsMatchTheUnwindObject) {
  JitTables tables;
  LineTables &lines = tables.lines;
  auto parsed = build({{kStart, kStart + 8, "f"}}, tables);
  ASSERT_TRUE(parsed);
  bool text = false, symtab = false;
  for (const llvm::object::SectionRef &section : parsed->object->sections()) {
    llvm::Expected<llvm::StringRef> name = section.getName();
    ASSERT_TRUE(bool(name));
    if (*name == ".text") {
      text = true;
      EXPECT_EQ(section.getAddress(), kStart);
      EXPECT_EQ(section.getSize(), kEnd - kStart);
    }
    symtab |= *name == ".symtab";
  }
  EXPECT_TRUE(text);
  EXPECT_FALSE(symtab) << "a symbol table would hide the JSON symbols";
}

// Node 20's V8 names the outer script for lines of code inlined from another
// one: an entry past the end of its file covers no address at all.
TEST(DebugObject, ImpossibleLinesCoverNoAddress) {
  JitTables tables;
  LineTables &lines = tables.lines;
  const uint64_t f = kStart + 0x100;
  lines.set(f, {{f, 5, 16, "/app/app.js"}, {f + 0x10, 70, 11, "/app/app.js"},
                {f + 0x20, 6, 3, "/app/app.js"}});
  auto tenLines = [](std::string_view, uint32_t line) { return line <= 10; };
  auto parsed = build({{f, f + 0x40, "JS:*middle /app/app.js:5:16"}}, tables, tenLines);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(lineAt(*parsed, f + 0x8).Line, 5u);
  EXPECT_EQ(lineAt(*parsed, f + 0x18).Line, 0u) << "line 70 of a 10-line file";
  EXPECT_EQ(lineAt(*parsed, f + 0x28).Line, 6u);
}

TEST(SourceFiles, LinesPastTheEndCannotExist) {
  EXPECT_EQ(countLines(""), 0u);
  EXPECT_EQ(countLines("a\nb\n"), 2u);
  EXPECT_EQ(countLines("a\nb"), 2u);
  SourceFiles files;
  const std::string self = __FILE__; // this file, absolute in CMake builds
  EXPECT_TRUE(files.lineCanExist(self, 10));
  EXPECT_FALSE(files.lineCanExist(self, 1000000));
  EXPECT_TRUE(files.lineCanExist("node:internal/util", 1000000)) << "not a local path";
  EXPECT_TRUE(files.lineCanExist("/no/such/file.js", 1000000)) << "unreadable: trusted";
}

// Found by the debugobject fuzz target: a name with a NUL in it (a perf map
// line may hold one) was written whole, and LLVM read the rest of it as the
// next attribute, misreading every DIE after it. Names are shown as the
// symbols are, control characters escaped (PrintableText.h): the NUL too.
TEST(DebugObject, NamesWithNulsAreEscaped) {
  JitTables tables;
  LineTables &lines = tables.lines;
  const uint64_t f = kStart + 0x100, g = kStart + 0x200;
  lines.set(f, {{f, 3, 1, std::string_view("/app/a.js\0tail", 14)}});
  const std::string withNul("JS:*f\0garbage", 13);
  auto parsed = build({{f, f + 0x40, withNul}, {g, g + 0x40, "JS:*g"}}, tables);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(lineAt(*parsed, f + 4).FunctionName, "JS:*f\\x00garbage");
  EXPECT_EQ(lineAt(*parsed, f + 4).FileName, "/app/a.js\\x00tail");
  EXPECT_EQ(lineAt(*parsed, g + 4).FunctionName, "JS:*g");
  std::string report;
  llvm::raw_string_ostream out(report);
  EXPECT_TRUE(parsed->dwarf->verify(out)) << report;
}

// An empty file name (a jitdump's CODE_DEBUG_INFO may give one) would end the
// line table's list of files: its lines show no line, and the others stay.
TEST(DebugObject, EmptyFileNameShowsNoLine) {
  JitTables tables;
  LineTables &lines = tables.lines;
  const uint64_t f = kStart + 0x100;
  lines.set(f, {{f, 3, 1, ""}, {f + 0x10, 4, 1, "/app/b.js"}});
  auto parsed = build({{f, f + 0x40, "JS:*f"}}, tables);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(lineAt(*parsed, f + 4).Line, 0u);
  EXPECT_EQ(lineAt(*parsed, f + 0x14).Line, 4u);
  EXPECT_EQ(lineAt(*parsed, f + 0x14).FileName, "/app/b.js");
  std::string report;
  llvm::raw_string_ostream out(report);
  EXPECT_TRUE(parsed->dwarf->verify(out)) << report;
}

TEST(DebugObject, DataSymbolsAreNoFunctions) {
  // A DW_TAG_subprogram would let a breakpoint resolve on data whatever the
  // JSON symbol's type says.
  JitTables tables;
  SymbolTable &table = tables.symbols;
  table.add(0x7f0000001000, 0x40, "JS:~bytecode");
  table.add(0x7f0000001100, 0x40, "JS:*code");
  bool any = false;
  std::vector<DebugFunction> functions = debugFunctionsIn(
      tables, {0x7f0000000000, 0x7f0000100000}, any,
      [&](const Symbol &s) { return table.name(s).substr(0, 4) == "JS:~"; });
  ASSERT_EQ(functions.size(), 1u);
  EXPECT_EQ(functions[0].name, "JS:*code");
}

// A breakpoint by name stops at a JIT function's first instruction: the row
// at its start says prologue_end (LLDB would skip to the second line), the
// other rows do not; a function whose lines start later has no such row.
TEST(DebugObject, PrologueEndsAtTheFirstInstruction) {
  JitTables tables;
  LineTables &lines = tables.lines;
  const uint64_t f = kStart + 0x100, g = kStart + 0x400;
  lines.set(f, {{f, 3, 1, "/app/hot.js"}, {f + 0x10, 4, 1, "/app/hot.js"}});
  lines.set(g, {{g + 0x8, 7, 1, "/app/hot.js"}});
  auto parsed = build({{f, f + 0x40, "f"}, {g, g + 0x40, "g"}}, tables);
  ASSERT_TRUE(parsed);
  const auto [rows, prologueEnds] = rowAddresses(*parsed);
  EXPECT_EQ(rows, (std::vector<uint64_t>{f, f + 0x10, g + 0x8}));
  EXPECT_EQ(prologueEnds, (std::vector<uint64_t>{f}));
}

// A function entered past its start (HotSpot's verified entry point, after a
// virtual method's inline-cache check): the breakpoint goes there, in a row
// of the line that covers it; an entry where no line is shown keeps it at the
// start.
TEST(DebugObject, PrologueEndsAtTheEntryPoint) {
  JitTables tables;
  LineTables &lines = tables.lines;
  const uint64_t f = kStart + 0x100, g = kStart + 0x400, h = kStart + 0x800;
  lines.set(f, {{f, 3, 0, "Leaf.java"}, {f + 0x40, 4, 0, "Leaf.java"}});
  lines.setEntryPoint(f, f + 0x20);
  lines.set(g, {{g, 5, 0, "Leaf.java"}, {g + 0x20, 6, 0, "Leaf.java"}});
  lines.setEntryPoint(g, g + 0x20); // a row starts there already
  lines.set(h, {{h, 0, 0, "Leaf.java"}, {h + 0x40, 8, 0, "Leaf.java"}});
  lines.setEntryPoint(h, h + 0x20); // in code with no line
  auto parsed = build({{f, f + 0x80, "f"}, {g, g + 0x80, "g"}, {h, h + 0x80, "h"}}, tables);
  ASSERT_TRUE(parsed);
  const auto [rows, prologueEnds] = rowAddresses(*parsed);
  EXPECT_EQ(rows, (std::vector<uint64_t>{f, f + 0x20, f + 0x40, g, g + 0x20, h + 0x40}));
  EXPECT_EQ(prologueEnds, (std::vector<uint64_t>{f + 0x20, g + 0x20}));
  EXPECT_EQ(lineAt(*parsed, f + 0x28).Line, 3u); // the added row keeps the line
  // The entry follows the code when it moves, and goes with its lines.
  lines.move(f, f + 0x1000);
  EXPECT_EQ(lines.entryPoint(f + 0x1000), f + 0x1020);
  EXPECT_FALSE(lines.entryPoint(f));
  lines.erase(g);
  EXPECT_FALSE(lines.entryPoint(g));
}
