// .eh_frame parsing (LSB Core "Exception Frames"): CIEs and FDEs read with
// LLVM's DWARFDataExtractorSimple, CFA programs checked with LLVM's CFIProgram.
#include "jitsym/formats/EhFrameParser.h"

#include <algorithm>
#include <map>

#include "jitsym/base/HexText.h"
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
constexpr uint8_t kAddressSize = 8;

struct Cie {
  uint64_t codeAlignment = 1;
  int64_t dataAlignment = 0;
  uint64_t returnAddressRegister = 0;
  uint8_t pointerEncoding = dwarf::DW_EH_PE_absptr; // of the FDEs' code address
  bool hasAugmentationData = false;                 // 'z': FDEs carry a length
  std::string initialInstructions;
};

// An error at a byte offset of the .eh_frame.
Error problem(uint64_t offset, const Twine &what) {
  return createStringError(inconvertibleErrorCode(),
                           "eh_frame offset " + Twine(offset) + ": " + what);
}

// Checks that [at, end) decodes as a CFA program .debug_frame can carry as is.
Error checkProgram(const Extractor &data, uint64_t at, uint64_t end, const Cie &cie) {
  // Decoding is the same for every architecture (only naming registers and
  // printing differ).
  dwarf::CFIProgram program(cie.codeAlignment, cie.dataAlignment, Triple::UnknownArch);
  Extractor bounded(data, end); // a program must not read past its entry
  uint64_t offset = at;
  if (Error err = program.parse(bounded, &offset, end))
    return problem(offset, "bad CFA instruction: " + toString(std::move(err)));
  for (const dwarf::CFIProgram::Instruction &instruction : program)
    if (instruction.Opcode == dwarf::DW_CFA_set_loc)
      return problem(at, "DW_CFA_set_loc is not supported");
  return Error::success();
}

// Reads an encoded pointer; nullopt when the encoding is unsupported or the
// pointer runs past `end`.
std::optional<uint64_t> pointer(const Extractor &data, uint64_t &offset, uint64_t end,
                                uint8_t encoding, uint64_t address) {
  if (encoding & dwarf::DW_EH_PE_indirect)
    return std::nullopt; // a pointer to the pointer: nothing for a JIT's frames
  Extractor bounded(data, end);
  const uint64_t before = offset;
  std::optional<uint64_t> value =
      bounded.getEncodedPointer(&offset, encoding, address + before);
  if (offset == before)
    return std::nullopt; // nothing was read: out of bounds
  return value;
}

Expected<Cie> parseCie(const Extractor &data, uint64_t at, uint64_t end, uint64_t address) {
  DataExtractor::Cursor c(at);
  Cie cie;
  const uint8_t version = data.getU8(c);
  if (c && version != 1 && version != 3)
    return problem(at, "CIE version " + Twine(unsigned(version)) + " (1 or 3 expected)");
  const StringRef augmentation = data.getCStrRef(c);
  cie.codeAlignment = data.getULEB128(c);
  cie.dataAlignment = data.getSLEB128(c);
  cie.returnAddressRegister = version == 1 ? data.getU8(c) : data.getULEB128(c);
  if (!c)
    return problem(at, "CIE cut short: " + toString(c.takeError()));
  if (c.tell() > end)
    return problem(at, "CIE longer than its length");
  if (!augmentation.empty() && augmentation[0] != 'z')
    return problem(at + 1, "unsupported CIE augmentation \"" + augmentation + "\"");
  uint64_t instructions = c.tell();
  if (!augmentation.empty()) {
    cie.hasAugmentationData = true;
    const uint64_t length = data.getULEB128(c);
    if (!c || c.tell() > end || end - c.tell() < length)
      return problem(c.tell(), "CIE augmentation data runs past the entry");
    instructions = c.tell() + length;
    uint64_t offset = c.tell();
    for (char field : augmentation.drop_front()) {
      if (field == 'R') {
        cie.pointerEncoding = data.getU8(&offset);
      } else if (field == 'L') {
        data.getU8(&offset); // LSDA encoding: exception handling only
      } else if (field == 'P') {
        const uint8_t encoding = data.getU8(&offset);
        if (!pointer(data, offset, instructions, encoding, address))
          return problem(offset, "bad personality pointer");
      } else if (field != 'S' && field != 'B') {
        break; // an unknown field: the rest of the data cannot be interpreted
      }
      if (offset > instructions)
        return problem(offset, "CIE augmentation data runs past its length");
    }
  }
  if (Error err = checkProgram(data, instructions, end, cie))
    return err;
  cie.initialInstructions = data.getData().substr(instructions, end - instructions).str();
  return cie;
}

Expected<CallFrameInfo> parseFde(const Extractor &data, uint64_t at, uint64_t end,
                                 uint64_t address, const Cie &cie) {
  uint64_t offset = at;
  std::optional<uint64_t> start = pointer(data, offset, end, cie.pointerEncoding, address);
  // The size has the encoding's format, never pc-relative.
  std::optional<uint64_t> size = pointer(data, offset, end, cie.pointerEncoding & 0x0f, 0);
  if (!start || !size)
    return problem(at, "bad FDE code range (pointer encoding " +
                           hexText(cie.pointerEncoding) + ")");
  if (cie.hasAugmentationData) {
    DataExtractor::Cursor c(offset);
    const uint64_t length = data.getULEB128(c);
    if (!c || c.tell() > end || end - c.tell() < length)
      return problem(offset, "FDE augmentation data runs past the entry");
    offset = c.tell() + length;
  }
  if (*start + *size < *start)
    return problem(at, "FDE code range wraps around");
  if (Error err = checkProgram(data, offset, end, cie))
    return err;
  CallFrameInfo frame;
  frame.start = *start;
  frame.end = *start + *size;
  frame.codeAlignment = cie.codeAlignment;
  frame.dataAlignment = cie.dataAlignment;
  frame.returnAddressRegister = cie.returnAddressRegister;
  frame.initialInstructions = cie.initialInstructions;
  frame.instructions = data.getData().substr(offset, end - offset).str();
  return frame;
}

// The rules of one row: the CFA's register and offset, and where registers
// are saved (offsets from the CFA).
struct Row {
  uint32_t cfaRegister = UINT32_MAX;
  int64_t cfaOffset = 0;
  std::map<uint32_t, int64_t> saved;
};

// Runs a CFA program from `row` on, calling `onRow` with each row it passes
// and the code it covers (0 for the last, which runs to the FDE's end).
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
      onRow(row, operand(0) * frame.codeAlignment);
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
  onRow(row, 0);
  return true;
}

} // namespace

Expected<std::vector<CallFrameInfo>> parseEhFrame(std::string_view bytes, uint64_t address) {
  const Extractor data(StringRef(bytes.data(), bytes.size()), /*IsLittleEndian=*/true,
                       kAddressSize);
  std::vector<std::pair<uint64_t, Cie>> cies; // by offset, ascending (a JIT writes one or two)
  std::vector<CallFrameInfo> frames;
  uint64_t at = 0;
  while (at < bytes.size()) {
    DataExtractor::Cursor c(at);
    const uint64_t length = data.getInitialLength(c).first;
    if (!c)
      return problem(at, "entry length cut short");
    if (length == 0)
      break; // terminator
    const uint64_t idAt = c.tell();
    if (length > bytes.size() - idAt)
      return problem(at, "entry of " + Twine(length) + " bytes runs past the end (" +
                             Twine(bytes.size()) + " bytes)");
    const uint64_t end = idAt + length;
    const uint64_t id = data.getU32(c); // 4 bytes in .eh_frame, even in DWARF64
    if (!c || c.tell() > end)
      return problem(at, "entry too short for its CIE id");
    if (id == 0) {
      Expected<Cie> cie = parseCie(data, c.tell(), end, address);
      if (!cie)
        return cie.takeError();
      cies.emplace_back(at, std::move(*cie));
    } else {
      // An FDE: the id is the distance back to its CIE.
      auto cie = std::find_if(cies.begin(), cies.end(),
                              [&](const auto &c) { return id <= idAt && c.first == idAt - id; });
      if (cie == cies.end())
        return problem(at, "FDE points to no CIE (back " + Twine(id) + " bytes)");
      Expected<CallFrameInfo> frame = parseFde(data, c.tell(), end, address, cie->second);
      if (!frame)
        return frame.takeError();
      frames.push_back(std::move(*frame));
    }
    at = end;
  }
  return frames;
}

std::string_view ehFrameOf(const JitUnwindingInfo &info) {
  if (info.mappedSize == 0 || info.ehFrameHeaderSize > info.data.size())
    return {};
  return info.data.substr(0, info.data.size() - info.ehFrameHeaderSize);
}

std::optional<std::vector<CfaRow>> cfaRowsOf(const CallFrameInfo &frame) {
  std::vector<CfaRow> rows;
  Row row;
  std::vector<Row> remembered;
  if (!run(frame.initialInstructions, frame, row, Row{}, remembered, [](const Row &, uint64_t) {}))
    return std::nullopt;
  const Row initial = row;
  uint64_t address = frame.start;
  if (!run(frame.instructions, frame, row, initial, remembered, [&](const Row &at, uint64_t advance) {
        rows.push_back({address, at.cfaRegister, at.cfaOffset, {at.saved.begin(), at.saved.end()}});
        address += advance;
      }))
    return std::nullopt;
  return rows;
}

} // namespace jitsym
