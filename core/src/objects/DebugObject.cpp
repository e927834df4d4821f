// DWARF 4 for a JIT window: one compile unit, a subprogram per function, and a
// line program with one sequence per function that has lines, and a
// .debug_frame with the functions' unwind tables. Emitted directly, a field at
// a time (LLVM's encoders and constants): a window's DWARF is built again
// after every delta that adds functions to it, and LLVM's DWARFYAML emitters,
// which built it before, cost ~10x as much (bench: BM_DebugObjectWindow).
#include "jitsym/objects/DebugObject.h"

#include <algorithm>
#include <map>

#include "LittleEndianWriter.h"
#include "jitsym/base/PrintableText.h"
#include "jitsym/objects/DebugFrame.h"
#include "jitsym/objects/ElfImage.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/BinaryFormat/ELF.h"

namespace jitsym {
namespace {

using namespace llvm;

enum AbbrevCode : uint8_t { kUnit = 1, kFunction = 2 };

// The line program's parameters (those of LLVM's own assembler).
constexpr int8_t kLineBase = -5;
constexpr uint8_t kLineRange = 14;
constexpr uint8_t kOpcodeBase = 13;
constexpr uint8_t kStandardOpcodeLengths[kOpcodeBase - 1] = {0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1};

std::string abbreviations() {
  std::string out;
  LittleEndianWriter w(out);
  auto abbrev = [&](uint8_t code, dwarf::Tag tag, bool children,
                    std::initializer_list<std::pair<dwarf::Attribute, dwarf::Form>> attributes) {
    w.uleb(code);
    w.uleb(tag);
    w.put<uint8_t>(children ? dwarf::DW_CHILDREN_yes : dwarf::DW_CHILDREN_no);
    for (auto [attribute, form] : attributes) {
      w.uleb(attribute);
      w.uleb(form);
    }
    w.uleb(0);
    w.uleb(0);
  };
  abbrev(kUnit, dwarf::DW_TAG_compile_unit, true,
         {{dwarf::DW_AT_producer, dwarf::DW_FORM_string},
          {dwarf::DW_AT_name, dwarf::DW_FORM_string},
          {dwarf::DW_AT_comp_dir, dwarf::DW_FORM_string},
          {dwarf::DW_AT_stmt_list, dwarf::DW_FORM_sec_offset},
          {dwarf::DW_AT_low_pc, dwarf::DW_FORM_addr},
          {dwarf::DW_AT_high_pc, dwarf::DW_FORM_data8}});
  abbrev(kFunction, dwarf::DW_TAG_subprogram, false,
         {{dwarf::DW_AT_name, dwarf::DW_FORM_string},
          {dwarf::DW_AT_low_pc, dwarf::DW_FORM_addr},
          {dwarf::DW_AT_high_pc, dwarf::DW_FORM_data8}});
  w.uleb(0); // end of the table
  return out;
}

// Names and file names are shown as the symbol table's are: control
// characters escaped (PrintableText.h). That includes NUL, which a perf map
// line may hold in a name: written raw, it would end the DWARF string, the
// rest be read as the next attribute and every DIE after it misread.
void string(LittleEndianWriter &w, std::string_view text) {
  if (hasControlCharacters(text)) {
    const std::string shown = printableText(text);
    w.bytes(shown.data(), shown.size());
  } else {
    w.bytes(text.data(), text.size());
  }
  w.put<uint8_t>(0);
}

// Builds the line program, one row at a time.
class LineProgram {
public:
  explicit LineProgram(std::string &out) : w_(out) {}

  void beginSequence(uint64_t address) {
    extended(dwarf::DW_LNE_set_address, 9);
    w_.put<uint64_t>(address);
    address_ = address;
    line_ = 1;
    column_ = 0;
    file_ = 1;
  }
  // `prologueEnd`: where a breakpoint on the function goes (DWARF's
  // prologue_end flag, which holds for this row only).
  void row(uint64_t address, uint32_t file, uint32_t line, uint32_t column,
           bool prologueEnd = false) {
    if (file != file_)
      standard(dwarf::DW_LNS_set_file, file);
    if (column != column_)
      standard(dwarf::DW_LNS_set_column, column);
    if (line != line_) {
      w_.put<uint8_t>(dwarf::DW_LNS_advance_line);
      w_.sleb(static_cast<int64_t>(line) - static_cast<int64_t>(line_));
    }
    if (address != address_)
      standard(dwarf::DW_LNS_advance_pc, address - address_);
    if (prologueEnd)
      w_.put<uint8_t>(dwarf::DW_LNS_set_prologue_end);
    w_.put<uint8_t>(dwarf::DW_LNS_copy);
    address_ = address;
    file_ = file;
    line_ = line;
    column_ = column;
  }
  void endSequence(uint64_t end) {
    if (end != address_)
      standard(dwarf::DW_LNS_advance_pc, end - address_);
    extended(dwarf::DW_LNE_end_sequence, 1);
  }

private:
  void standard(dwarf::LineNumberOps opcode, uint64_t operand) {
    w_.put<uint8_t>(opcode);
    w_.uleb(operand);
  }
  void extended(dwarf::LineNumberExtendedOps opcode, uint64_t length) {
    w_.put<uint8_t>(0);
    w_.uleb(length);
    w_.put<uint8_t>(opcode);
  }

  LittleEndianWriter w_;
  uint64_t address_ = 0;
  uint32_t file_ = 1, line_ = 1, column_ = 0;
};

ElfSection debugSection(const char *name, std::string bytes) {
  ElfSection section;
  section.name = name;
  section.type = ELF::SHT_PROGBITS;
  section.bytes = std::move(bytes);
  return section;
}

} // namespace

Expected<std::vector<ElfSection>> buildDebugSections(const AddressRange &textRange,
                                                     std::string_view unitName,
                                                     const std::vector<DebugFunction> &unsorted,
                                                     const JitTables &tables,
                                                     LinePlausible plausible) {
  const LineTables &lines = tables.lines;
  const UnwindTables &unwind = tables.unwind;
  std::vector<DebugFunction> functions = unsorted;
  std::sort(functions.begin(), functions.end(),
            [](const DebugFunction &a, const DebugFunction &b) { return a.start < b.start; });

  // .debug_info: the unit's header and DIE, then a subprogram per function.
  std::string info;
  LittleEndianWriter infoOut(info);
  infoOut.put<uint32_t>(0); // unit_length, patched below
  infoOut.put<uint16_t>(4);
  infoOut.put<uint32_t>(0); // debug_abbrev_offset
  infoOut.put<uint8_t>(8);  // address_size
  infoOut.uleb(kUnit);
  string(infoOut, "jitsym");
  string(infoOut, unitName);
  string(infoOut, "/");
  infoOut.put<uint32_t>(0); // stmt_list: the one line table
  infoOut.put<uint64_t>(textRange.start);
  infoOut.put<uint64_t>(textRange.end - textRange.start);

  std::string program;
  LineProgram lineProgram(program);
  std::map<uint32_t, uint32_t> fileNumbers; // LineTables file index -> DWARF file number
  std::vector<std::string_view> fileNames;
  std::vector<const CallFrameInfo *> frames;

  for (const DebugFunction &f : functions) {
    infoOut.uleb(kFunction);
    string(infoOut, f.name);
    infoOut.put<uint64_t>(f.start);
    infoOut.put<uint64_t>(f.end - f.start);

    if (const std::vector<CallFrameInfo> *own = unwind.frames(f.start))
      for (const CallFrameInfo &frame : *own)
        if (frame.start >= f.start && frame.start < f.end)
          frames.push_back(&frame);

    const std::vector<LineTables::Entry> *table = lines.entries(f.start);
    if (!table)
      continue;
    auto visible = [&](const LineTables::Entry &e) {
      return e.line != 0 && !lines.file(e.file).empty() &&
             (!plausible || plausible(lines.file(e.file), e.line));
    };
    // Where a breakpoint on the function goes: its first instruction, or the
    // entry every call passes (HotSpot's verified entry point, after the
    // inline-cache check that calls through a vtable skip). There a row of
    // the line that covers it is added, unless that code shows no line: then
    // the start, as LLDB would otherwise look for the second line.
    std::vector<LineTables::Entry> rows = *table;
    uint64_t breakAt = f.start;
    if (const std::optional<uint64_t> entry = lines.entryPoint(f.start);
        entry && *entry > f.start && *entry < f.end) {
      auto after = std::upper_bound(
          rows.begin(), rows.end(), *entry,
          [](uint64_t address, const LineTables::Entry &e) { return address < e.address; });
      if (after != rows.begin() && visible(after[-1])) {
        breakAt = *entry;
        if (after[-1].address != *entry) {
          LineTables::Entry copy = after[-1];
          copy.address = *entry;
          rows.insert(after, copy);
        }
      }
    }
    const std::vector<LineTables::Entry> *entries = &rows;
    bool open = false; // a sequence is open
    for (size_t i = 0; i < entries->size(); ++i) {
      const LineTables::Entry &e = (*entries)[i];
      if (e.address < f.start || e.address >= f.end)
        continue;
      // Of several rows at one address, the last is the one a lookup finds.
      if (i + 1 < entries->size() && (*entries)[i + 1].address == e.address)
        continue;
      // An empty name would end the line table's list of files: such a file
      // has no name to show anyway.
      if (!visible(e)) {
        // No row covers these addresses: they show no line, not a wrong one.
        if (open)
          lineProgram.endSequence(e.address);
        open = false;
        continue;
      }
      if (!open)
        lineProgram.beginSequence(e.address);
      open = true;
      auto [it, added] = fileNumbers.try_emplace(e.file, uint32_t(fileNumbers.size() + 1));
      if (added)
        fileNames.push_back(lines.file(e.file));
      // A breakpoint on a JIT function stops at its first instruction (or
      // its entry point), as where its lines are not known yet: LLDB would
      // otherwise skip to the function's second line, which a runtime's
      // coarse line table may put past code that runs first, or on a path
      // not taken.
      lineProgram.row(e.address, it->second, e.line, e.column, e.address == breakAt);
    }
    if (open)
      lineProgram.endSequence(f.end);
  }
  infoOut.put<uint8_t>(0); // end of the unit's children
  infoOut.patch32(0, static_cast<uint32_t>(info.size() - 4));

  // .debug_line: the header (its files in order of first use), then the program.
  std::string line;
  LittleEndianWriter lineOut(line);
  lineOut.put<uint32_t>(0); // unit_length, patched below
  lineOut.put<uint16_t>(4);
  lineOut.put<uint32_t>(0); // header_length, patched below
  const size_t headerStart = line.size();
  lineOut.put<uint8_t>(1); // minimum_instruction_length
  lineOut.put<uint8_t>(1); // maximum_operations_per_instruction
  lineOut.put<uint8_t>(1); // default_is_stmt
  lineOut.put<int8_t>(kLineBase);
  lineOut.put<uint8_t>(kLineRange);
  lineOut.put<uint8_t>(kOpcodeBase);
  lineOut.bytes(kStandardOpcodeLengths, sizeof(kStandardOpcodeLengths));
  lineOut.put<uint8_t>(0); // no include directories
  for (std::string_view name : fileNames) {
    string(lineOut, name);
    lineOut.uleb(0); // directory
    lineOut.uleb(0); // modification time
    lineOut.uleb(0); // length
  }
  lineOut.put<uint8_t>(0); // end of the files
  lineOut.patch32(6, static_cast<uint32_t>(line.size() - headerStart));
  lineOut.bytes(program);
  lineOut.patch32(0, static_cast<uint32_t>(line.size() - 4));

  std::vector<ElfSection> sections;
  sections.push_back(debugSection(".debug_abbrev", abbreviations()));
  sections.push_back(debugSection(".debug_info", std::move(info)));
  sections.push_back(debugSection(".debug_line", std::move(line)));
  if (!frames.empty())
    sections.push_back(debugSection(".debug_frame", buildDebugFrame(frames)));
  return sections;
}

Expected<std::string> buildDebugObject(const Architecture &arch, const AddressRange &textRange,
                                       const UuidBytes &buildId,
                                       std::string_view unitName,
                                       const std::vector<DebugFunction> &functions,
                                       const JitTables &tables, LinePlausible plausible,
                                       std::vector<LldbSymbol> symbols) {
  Expected<std::vector<ElfSection>> debug =
      buildDebugSections(textRange, unitName, functions, tables, plausible);
  if (!debug)
    return debug.takeError();
  ElfImageSpec spec;
  spec.machine = arch.elfMachine;
  spec.buildId = buildId;
  // No load segment: the module's object places the window. A symbol table
  // only when the object has one too (see the header); one here would take
  // precedence over the JSON symbols of an exported window.
  spec.symbols = std::move(symbols);
  spec.sections.push_back(codeSection(textRange));
  for (ElfSection &section : *debug)
    spec.sections.push_back(std::move(section));
  return writeElfImage(spec);
}

} // namespace jitsym

namespace jitsym {

std::vector<DebugFunction> debugFunctionsIn(const JitTables &tables, const AddressRange &text,
                                            bool &anyDebugInfo, SymbolPredicate isData) {
  const SymbolTable &table = tables.symbols;
  std::vector<DebugFunction> functions;
  anyDebugInfo = false;
  table.forEachInRange(text.start, text.end, [&](const Symbol &symbol) {
    if (symbol.address < text.start)
      return; // starts in the window before: not this one's
    if (isData && isData(symbol))
      return;
    const uint64_t end = std::min(symbol.end(), text.end);
    functions.push_back({symbol.address, end, table.name(symbol)});
    anyDebugInfo = anyDebugInfo || tables.lines.entries(symbol.address) != nullptr ||
                   tables.unwind.frames(symbol.address) != nullptr;
  });
  return functions;
}

} // namespace jitsym
