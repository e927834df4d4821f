// DWARF 4 for a JIT window: one compile unit, a subprogram per function, and a
// line program with one sequence per function that has lines (LLVM's DWARFYAML
// emitters), and a .debug_frame with the functions' unwind tables.
#include "jitsym/objects/DebugObject.h"

#include <algorithm>
#include <map>

#include "jitsym/objects/DebugFrame.h"
#include "jitsym/objects/ElfImage.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/ObjectYAML/DWARFEmitter.h"
#include "llvm/ObjectYAML/DWARFYAML.h"
#include "llvm/Support/raw_ostream.h"

namespace jitsym {
namespace {

// The units of a DWARFYAML::Data: `Units` since LLVM 20, `CompileUnits` before
// (whichever member exists is the one that compiles).
template <typename Data> auto unitsOf(Data &data) -> decltype((data.Units)) {
  return data.Units;
}
template <typename Data> auto unitsOf(Data &data) -> decltype((data.CompileUnits)) {
  return data.CompileUnits;
}

using namespace llvm;

enum AbbrevCode : uint32_t { kUnit = 1, kFunction = 2 };

DWARFYAML::AbbrevTable abbreviations() {
  auto abbrev = [](uint32_t code, dwarf::Tag tag, bool children,
                   std::vector<std::pair<dwarf::Attribute, dwarf::Form>> attributes) {
    DWARFYAML::Abbrev a;
    a.Code = yaml::Hex64(code);
    a.Tag = tag;
    a.Children = children ? dwarf::DW_CHILDREN_yes : dwarf::DW_CHILDREN_no;
    for (auto [attribute, form] : attributes)
      a.Attributes.push_back({attribute, form, yaml::Hex64(0)});
    return a;
  };
  DWARFYAML::AbbrevTable table;
  table.ID = 0;
  table.Table.push_back(abbrev(kUnit, dwarf::DW_TAG_compile_unit, true,
                               {{dwarf::DW_AT_producer, dwarf::DW_FORM_string},
                                {dwarf::DW_AT_name, dwarf::DW_FORM_string},
                                {dwarf::DW_AT_comp_dir, dwarf::DW_FORM_string},
                                {dwarf::DW_AT_stmt_list, dwarf::DW_FORM_sec_offset},
                                {dwarf::DW_AT_low_pc, dwarf::DW_FORM_addr},
                                {dwarf::DW_AT_high_pc, dwarf::DW_FORM_data8}}));
  table.Table.push_back(abbrev(kFunction, dwarf::DW_TAG_subprogram, false,
                               {{dwarf::DW_AT_name, dwarf::DW_FORM_string},
                                {dwarf::DW_AT_low_pc, dwarf::DW_FORM_addr},
                                {dwarf::DW_AT_high_pc, dwarf::DW_FORM_data8}}));
  return table;
}

DWARFYAML::FormValue number(uint64_t value) {
  DWARFYAML::FormValue v;
  v.Value = yaml::Hex64(value);
  return v;
}
// DWARF strings end at a NUL, so a name is written up to its first one: a perf
// map line may hold NULs in its name, and written whole, the rest of the name
// would be read as the next attribute and every DIE after it misread.
StringRef dwarfString(std::string_view text) {
  return StringRef(text.data(), std::min(text.find('\0'), text.size()));
}

DWARFYAML::FormValue text(StringRef value) {
  DWARFYAML::FormValue v;
  v.CStr = value;
  return v;
}

// Builds the line program, one row at a time.
class LineProgram {
public:
  explicit LineProgram(DWARFYAML::LineTable &table) : table_(table) {}

  void beginSequence(uint64_t address) {
    extended(dwarf::DW_LNE_set_address, 9, address);
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
      DWARFYAML::LineTableOpcode op{};
      op.Opcode = dwarf::DW_LNS_advance_line;
      op.SData = static_cast<int64_t>(line) - static_cast<int64_t>(line_);
      table_.Opcodes.push_back(op);
    }
    if (address != address_)
      standard(dwarf::DW_LNS_advance_pc, address - address_);
    if (prologueEnd)
      standard(dwarf::DW_LNS_set_prologue_end, 0);
    standard(dwarf::DW_LNS_copy, 0);
    address_ = address;
    file_ = file;
    line_ = line;
    column_ = column;
  }
  void endSequence(uint64_t end) {
    if (end != address_)
      standard(dwarf::DW_LNS_advance_pc, end - address_);
    extended(dwarf::DW_LNE_end_sequence, 1, 0);
  }

private:
  void standard(dwarf::LineNumberOps opcode, uint64_t data) {
    DWARFYAML::LineTableOpcode op{};
    op.Opcode = opcode;
    op.Data = data;
    table_.Opcodes.push_back(op);
  }
  void extended(dwarf::LineNumberExtendedOps opcode, uint64_t length, uint64_t data) {
    DWARFYAML::LineTableOpcode op{};
    op.Opcode = dwarf::DW_LNS_extended_op;
    op.ExtLen = length;
    op.SubOpcode = opcode;
    op.Data = data;
    table_.Opcodes.push_back(op);
  }

  DWARFYAML::LineTable &table_;
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
                                                     const LineTables &lines,
                                                     const UnwindTables &unwind,
                                                     LinePlausible plausible) {
  std::vector<DebugFunction> functions = unsorted;
  std::sort(functions.begin(), functions.end(),
            [](const DebugFunction &a, const DebugFunction &b) { return a.start < b.start; });

  DWARFYAML::Data dwarf;
  dwarf.IsLittleEndian = true;
  dwarf.Is64BitAddrSize = true;
  dwarf.DebugAbbrev.push_back(abbreviations());

  DWARFYAML::Unit unit{};
  unit.Format = dwarf::DWARF32;
  unit.Version = 4;
  unit.AddrSize = 8;
  unit.Type = dwarf::DW_UT_compile;
  unit.AbbrOffset = yaml::Hex64(0);
  DWARFYAML::Entry cu;
  cu.AbbrCode = yaml::Hex32(kUnit);
  cu.Values = {text("jitsym"), text(dwarfString(unitName)), text("/"), number(0),
               number(textRange.start), number(textRange.end - textRange.start)};
  unit.Entries.push_back(std::move(cu));

  DWARFYAML::LineTable table{};
  table.Format = dwarf::DWARF32;
  table.Version = 4;
  table.MinInstLength = 1;
  table.MaxOpsPerInst = 1;
  table.DefaultIsStmt = 1;
  table.LineBase = static_cast<uint8_t>(-5);
  table.LineRange = 14;
  table.OpcodeBase = 13;
  table.StandardOpcodeLengths = std::vector<uint8_t>{0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1};
  std::map<uint32_t, uint32_t> fileNumbers; // LineTables file index -> DWARF file number
  LineProgram program(table);
  std::vector<const CallFrameInfo *> frames;

  for (const DebugFunction &f : functions) {
    DWARFYAML::Entry sub;
    sub.AbbrCode = yaml::Hex32(kFunction);
    sub.Values = {text(dwarfString(f.name)), number(f.start), number(f.end - f.start)};
    unit.Entries.push_back(std::move(sub));

    if (const std::vector<CallFrameInfo> *own = unwind.frames(f.start))
      for (const CallFrameInfo &frame : *own)
        if (frame.start >= f.start && frame.start < f.end)
          frames.push_back(&frame);

    const std::vector<LineTables::Entry> *entries = lines.entries(f.start);
    if (!entries)
      continue;
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
      if (e.line == 0 || dwarfString(lines.file(e.file)).empty() ||
          (plausible && !plausible(lines.file(e.file), e.line))) {
        // No row covers these addresses: they show no line, not a wrong one.
        if (open)
          program.endSequence(e.address);
        open = false;
        continue;
      }
      if (!open)
        program.beginSequence(e.address);
      open = true;
      auto [it, added] = fileNumbers.try_emplace(e.file, uint32_t(fileNumbers.size() + 1));
      if (added) {
        table.Files.push_back({dwarfString(lines.file(e.file)), 0, 0, 0});
      }
      // A breakpoint on a JIT function stops at its first instruction, as
      // where its lines are not known yet: LLDB would otherwise skip to the
      // function's second line, which a runtime's coarse line table may put
      // past code that runs first, or on a path not taken.
      program.row(e.address, it->second, e.line, e.column, e.address == f.start);
    }
    if (open)
      program.endSequence(f.end);
  }
  unit.Entries.push_back(DWARFYAML::Entry{yaml::Hex32(0), {}}); // end of the unit's children
  unitsOf(dwarf).push_back(std::move(unit));
  dwarf.DebugLines.push_back(std::move(table));

  std::string abbrev, info, line;
  raw_string_ostream abbrevOut(abbrev), infoOut(info), lineOut(line);
  if (Error err = DWARFYAML::emitDebugAbbrev(abbrevOut, dwarf))
    return err;
  if (Error err = DWARFYAML::emitDebugInfo(infoOut, dwarf))
    return err;
  if (Error err = DWARFYAML::emitDebugLine(lineOut, dwarf))
    return err;

  std::vector<ElfSection> sections;
  sections.push_back(debugSection(".debug_abbrev", std::move(abbrev)));
  sections.push_back(debugSection(".debug_info", std::move(info)));
  sections.push_back(debugSection(".debug_line", std::move(line)));
  if (!frames.empty())
    sections.push_back(debugSection(".debug_frame", buildDebugFrame(frames)));
  return sections;
}

Expected<std::string> buildDebugObject(const AddressRange &textRange, const UuidBytes &buildId,
                                       std::string_view unitName,
                                       const std::vector<DebugFunction> &functions,
                                       const LineTables &lines, const UnwindTables &unwind,
                                       LinePlausible plausible, std::vector<LldbSymbol> symbols) {
  Expected<std::vector<ElfSection>> debug =
      buildDebugSections(textRange, unitName, functions, lines, unwind, plausible);
  if (!debug)
    return debug.takeError();
  ElfImageSpec spec;
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

std::vector<DebugFunction> debugFunctionsIn(const SymbolTable &table, const AddressRange &text,
                                            const LineTables &lines, const UnwindTables &unwind,
                                            bool &anyDebugInfo, SymbolPredicate isData) {
  std::vector<DebugFunction> functions;
  anyDebugInfo = false;
  table.forEachInRange(text.start, text.end, [&](const Symbol &symbol) {
    if (symbol.address < text.start)
      return; // starts in the window before: not this one's
    if (isData && isData(symbol))
      return;
    const uint64_t end = std::min(symbol.end(), text.end);
    functions.push_back({symbol.address, end, table.name(symbol)});
    anyDebugInfo = anyDebugInfo || lines.entries(symbol.address) != nullptr ||
                   unwind.frames(symbol.address) != nullptr;
  });
  return functions;
}

} // namespace jitsym
