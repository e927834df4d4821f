// The deepest row of a function's unwind table, read with LLVM's CFIProgram.
#include "jitsym/plan/RuntimeFrame.h"

#include <map>

#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/Config/llvm-config.h"
#if LLVM_VERSION_MAJOR >= 21 // CFIProgram and the plain extractor moved to LowLevel/
#include "llvm/DebugInfo/DWARF/LowLevel/DWARFCFIProgram.h"
#include "llvm/DebugInfo/DWARF/LowLevel/DWARFDataExtractorSimple.h"
#else
#include "llvm/DebugInfo/DWARF/DWARFDataExtractor.h"
#include "llvm/DebugInfo/DWARF/DWARFDebugFrame.h"
#endif

namespace jitsym {
namespace {

using namespace llvm;
#if LLVM_VERSION_MAJOR >= 21
using Extractor = DWARFDataExtractorSimple;
#else
using Extractor = DWARFDataExtractor;
#endif

// The rules of one row: the CFA's register and offset, and where registers
// are saved (offsets from the CFA).
struct Row {
  uint32_t cfaRegister = UINT32_MAX;
  int64_t cfaOffset = 0;
  std::map<uint32_t, int64_t> saved;
};

// Runs a CFA program from `row` on, calling `onRow` with each row it passes.
// False when it holds what is not followed here.
template <class OnRow>
bool run(const std::string &bytes, const CallFrameInfo &frame, Row &row, const Row &initial,
         std::vector<Row> &remembered, OnRow onRow) {
  if (bytes.empty())
    return true;
  dwarf::CFIProgram program(frame.codeAlignment, frame.dataAlignment, Triple::UnknownArch);
  Extractor data(StringRef(bytes), /*IsLittleEndian=*/true, 8);
  uint64_t offset = 0;
  if (Error err = program.parse(data, &offset, bytes.size())) {
    consumeError(std::move(err));
    return false;
  }
  for (const dwarf::CFIProgram::Instruction &in : program) {
    auto operand = [&](unsigned i) { return in.Ops.size() > i ? in.Ops[i] : 0; };
    switch (in.Opcode) {
    case dwarf::DW_CFA_advance_loc:
    case dwarf::DW_CFA_advance_loc1:
    case dwarf::DW_CFA_advance_loc2:
    case dwarf::DW_CFA_advance_loc4:
      onRow(row);
      break;
    case dwarf::DW_CFA_def_cfa:
      row.cfaRegister = static_cast<uint32_t>(operand(0));
      row.cfaOffset = static_cast<int64_t>(operand(1));
      break;
    case dwarf::DW_CFA_def_cfa_sf:
      row.cfaRegister = static_cast<uint32_t>(operand(0));
      row.cfaOffset = static_cast<int64_t>(operand(1)) * frame.dataAlignment;
      break;
    case dwarf::DW_CFA_def_cfa_register:
      row.cfaRegister = static_cast<uint32_t>(operand(0));
      break;
    case dwarf::DW_CFA_def_cfa_offset:
      row.cfaOffset = static_cast<int64_t>(operand(0));
      break;
    case dwarf::DW_CFA_def_cfa_offset_sf:
      row.cfaOffset = static_cast<int64_t>(operand(0)) * frame.dataAlignment;
      break;
    case dwarf::DW_CFA_offset:
    case dwarf::DW_CFA_offset_extended:
      row.saved[static_cast<uint32_t>(operand(0))] =
          static_cast<int64_t>(operand(1)) * frame.dataAlignment;
      break;
    case dwarf::DW_CFA_offset_extended_sf:
      row.saved[static_cast<uint32_t>(operand(0))] =
          static_cast<int64_t>(operand(1)) * frame.dataAlignment;
      break;
    case dwarf::DW_CFA_restore:
    case dwarf::DW_CFA_restore_extended: {
      const uint32_t reg = static_cast<uint32_t>(operand(0));
      if (auto it = initial.saved.find(reg); it != initial.saved.end())
        row.saved[reg] = it->second;
      else
        row.saved.erase(reg);
      break;
    }
    case dwarf::DW_CFA_same_value:
    case dwarf::DW_CFA_undefined:
      row.saved.erase(static_cast<uint32_t>(operand(0)));
      break;
    case dwarf::DW_CFA_remember_state:
      remembered.push_back(row);
      break;
    case dwarf::DW_CFA_restore_state:
      if (remembered.empty())
        return false;
      row = remembered.back();
      remembered.pop_back();
      break;
    case dwarf::DW_CFA_nop:
    case dwarf::DW_CFA_GNU_args_size:
      break;
    default:
      return false; // expressions, registers in registers: not followed
    }
  }
  onRow(row);
  return true;
}

} // namespace

std::optional<RuntimeFrame> deepestFrameOf(const std::vector<CallFrameInfo> &frames,
                                           uint64_t address, uint32_t stackPointer) {
  for (const CallFrameInfo &frame : frames) {
    if (address < frame.start || address >= frame.end)
      continue;
    Row row;
    std::vector<Row> remembered;
    if (!run(frame.initialInstructions, frame, row, Row{}, remembered, [](const Row &) {}))
      return std::nullopt;
    const Row initial = row;
    std::optional<Row> deepest;
    if (!run(frame.instructions, frame, row, initial, remembered, [&](const Row &at) {
          if (at.cfaRegister == stackPointer && (!deepest || at.cfaOffset > deepest->cfaOffset))
            deepest = at;
        }))
      return std::nullopt;
    if (!deepest)
      return std::nullopt;
    RuntimeFrame result;
    result.cfaRegister = stackPointer;
    result.cfaOffset = deepest->cfaOffset;
    result.savedRegisters.assign(deepest->saved.begin(), deepest->saved.end());
    return result;
  }
  return std::nullopt;
}

} // namespace jitsym
