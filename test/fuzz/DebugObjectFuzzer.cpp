// libFuzzer target: the DWARF jitsym builds for a JIT window (DebugObject) from
// symbols and line tables that come from untrusted files (perf map names,
// jitdump CODE_DEBUG_INFO), read back with LLVM's DWARF reader as LLDB reads it.
//
// Input: up to 8 functions (offset, size, name bytes), 4 source file names, and
// up to 6 line entries per function (offset, line, column, file). Checked
// invariants:
//  - the image is an ELF object LLVM opens, and its DWARF passes LLVM's verifier;
//  - there is one subprogram per function, with its name as shown (control
//    characters escaped, NULs too: DWARF strings end at one), start and end;
//  - at every line entry's address inside a function, the line LLVM reads is
//    the one LineTables gives (file as shown, line, column), or none for line
//    0 or a file without a name.
#include "LlvmAcrossVersions.h"
#include "jitsym/objects/DebugObject.h"
#include "jitsym/symbols/LineTables.h"
#include "jitsym/symbols/SymbolTable.h"
#include "jitsym/symbols/UnwindTables.h"

#include "jitsym/base/PrintableText.h"

#include "FuzzCheck.h"
#include "llvm/DebugInfo/DIContext.h"
#include "llvm/DebugInfo/DWARF/DWARFContext.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

using namespace jitsym;

namespace {

// Names and file names as the object shows them (control characters, NUL
// included, escaped).
std::string shown(std::string_view text) { return printableText(text); }

constexpr uint64_t kStart = 0x7f0000100000, kEnd = kStart + 0x100000;

class Bytes {
public:
  Bytes(const uint8_t *data, size_t size) : data_(data), size_(size) {}
  template <typename T> T take() {
    T value{};
    const size_t n = std::min(sizeof value, size_ - std::min(at_, size_));
    std::memcpy(&value, data_ + std::min(at_, size_), n);
    at_ += sizeof value;
    return value;
  }
  std::string text(size_t limit) {
    const size_t n = std::min<size_t>(take<uint8_t>() % (limit + 1), size_ - std::min(at_, size_));
    std::string out(reinterpret_cast<const char *>(data_) + std::min(at_, size_), n);
    at_ += n;
    return out;
  }

private:
  const uint8_t *data_;
  size_t size_, at_ = 0;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Bytes in(data, size);
  struct Function {
    uint64_t start, size;
    std::string name;
  };
  std::vector<Function> functions(in.take<uint8_t>() % 9);
  for (Function &f : functions) {
    f.start = kStart + uint64_t(in.take<uint16_t>()) * 16;
    f.size = in.take<uint16_t>() % 0x400 + 1;
    f.name = in.text(24);
  }
  std::string files[4];
  for (std::string &file : files)
    file = in.text(12);

  JitTables tables;
  SymbolTable &table = tables.symbols;
  LineTables &lines = tables.lines;
  for (const Function &f : functions) {
    if (f.name.empty())
      continue; // a perf map or jitdump never gives an empty name
    table.add(f.start, f.size, f.name);
    std::vector<JitLineEntry> entries(in.take<uint8_t>() % 7);
    for (JitLineEntry &e : entries) {
      e.address = f.start + in.take<uint16_t>() % (f.size + 16);
      e.line = in.take<uint16_t>() % 1000;
      e.discriminator = in.take<uint8_t>();
      e.file = files[in.take<uint8_t>() % 4];
    }
    lines.set(f.start, entries);
  }

  bool anyDebugInfo = false;
  const std::vector<DebugFunction> debugFunctions =
      debugFunctionsIn(tables, {kStart, kEnd}, anyDebugInfo);
  UuidBytes id{};
  id[0] = 0x42;
  llvm::Expected<std::string> image =
      buildDebugObject(kX86_64, {kStart, kEnd}, id, "jit", debugFunctions, tables);
  CHECK(image);

  auto object =
      llvm::object::ObjectFile::createObjectFile(llvm::MemoryBufferRef(*image, "debug.o"));
  CHECK(object);
  std::unique_ptr<llvm::DWARFContext> dwarf = llvm::DWARFContext::create(**object);
  std::string report;
  llvm::raw_string_ostream reportOut(report);
  if (!dwarf->verify(reportOut)) {
    std::fprintf(stderr, "%s\n", report.c_str());
    CHECK(!"the DWARF passes LLVM's verifier");
  }

  std::map<uint64_t, std::pair<std::string, uint64_t>> subprograms; // start: name, end
  for (const auto &unit : dwarf->compile_units())
    for (const auto &entry : unit->dies()) {
      llvm::DWARFDie die(unit.get(), &entry);
      if (die.getTag() != llvm::dwarf::DW_TAG_subprogram)
        continue;
      uint64_t low = 0, high = 0, index = 0;
      CHECK(die.getLowAndHighPC(low, high, index));
      CHECK(subprograms.emplace(low, std::pair{std::string(die.getShortName()), high}).second);
    }
  CHECK(subprograms.size() == debugFunctions.size());
  for (const DebugFunction &f : debugFunctions) {
    auto it = subprograms.find(f.start);
    CHECK(it != subprograms.end());
    CHECK(it->second.first == shown(f.name));
    CHECK(it->second.second == f.end);

    const std::vector<LineTables::Entry> *entries = lines.entries(f.start);
    if (!entries)
      continue;
    for (const LineTables::Entry &e : *entries) {
      if (e.address < f.start || e.address >= f.end)
        continue;
      const std::optional<SourceLine> want = lines.find(f.start, e.address);
      const llvm::DILineInfo got = jitsym::test_support::lineOrNone(dwarf->getLineInfoForAddress(
          {e.address, llvm::object::SectionedAddress::UndefSection},
          llvm::DILineInfoSpecifier(llvm::DILineInfoSpecifier::FileLineInfoKind::RawValue,
                                    llvm::DILineInfoSpecifier::FunctionNameKind::ShortName)));
      if (!want || want->line == 0 || want->file.empty()) {
        CHECK(got.Line == 0);
        continue;
      }
      CHECK(got.Line == want->line);
      CHECK(got.Column == want->column);
      CHECK(got.FileName == shown(want->file));
    }
  }
  return 0;
}
