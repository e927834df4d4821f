// BEAM's scheduler frames, from the process and beam's binary.
#include "BeamSchedulerFrames.h"

#include <cinttypes>
#include <cstdio>

namespace jitsym::plugin {

std::optional<uint64_t> BeamSchedulerFrames::processMainReturn(lldb::SBTarget &target) {
  // The C function process_main (exported by beam), which jumps to the stub:
  // its one caller's return address is the stub's return address.
  lldb::SBSymbolContextList found = target.FindSymbols("process_main", lldb::eSymbolTypeCode);
  for (uint32_t i = 0; i < found.GetSize(); ++i) {
    lldb::SBSymbolContext context = found.GetContextAtIndex(i);
    lldb::SBModule module = context.GetModule();
    lldb::SBSection text = module.FindSection(".text");
    if (!text.IsValid())
      continue;
    lldb::SBData data = text.GetSectionData();
    std::string bytes(data.GetByteSize(), '\0');
    lldb::SBError error;
    if (bytes.empty() || data.ReadRawData(error, 0, bytes.data(), bytes.size()) != bytes.size())
      continue;
    const std::optional<uint64_t> ra = returnAddressOfOnlyCall(
        bytes, text.GetFileAddress(), context.GetSymbol().GetStartAddress().GetFileAddress());
    if (!ra)
      continue;
    const uint64_t load = module.ResolveFileAddress(*ra).GetLoadAddress(target);
    if (load != LLDB_INVALID_ADDRESS)
      return load;
  }
  return std::nullopt;
}

std::vector<uint64_t> BeamSchedulerFrames::describe(lldb::SBTarget &target,
                                                    const ReadPieces &read,
                                                    const std::vector<const Symbol *> &added,
                                                    JitTables &tables) {
  std::vector<uint64_t> remake;
  for (const Symbol *symbol : added) {
    const std::string_view name = tables.symbols.name(*symbol);
    if (isBeamNormalExit(name)) {
      exits_.push_back({symbol->address, symbol->end()});
      if (stub_)
        tables.unwind.set(symbol->address,
                          {beamProcessExitFrame(symbol->address, symbol->end(), *stub_)});
      continue;
    }
    if (!isBeamProcessMain(name) || symbol->size == 0 || symbol->size > 4096)
      continue;
    seen_ = true;
    std::vector<std::string> code = read({{symbol->address, symbol->end()}});
    stub_ = code.size() == 1 ? decodeBeamProcessMain(code[0], symbol->address) : std::nullopt;
    if (!stub_) {
      missing_ = "its process_main stub does not begin as BeamAsm's of OTP 25 does";
      continue;
    }
    if (!returnAddress_)
      returnAddress_ = processMainReturn(target);
    if (!returnAddress_) {
      missing_ = "no single call of process_main found in beam's code";
      stub_.reset();
      continue;
    }
    tables.unwind.set(symbol->address, {beamProcessMainFrame(*stub_, *returnAddress_)});
    // normal_exit's pieces announced before the stub get their rules now.
    for (const AddressRange &exit : exits_)
      if (const Symbol *piece = tables.symbols.findByAddress(exit.start);
          piece && piece->address == exit.start && isBeamNormalExit(tables.symbols.name(*piece))) {
        tables.unwind.set(exit.start, {beamProcessExitFrame(exit.start, exit.end, *stub_)});
        remake.push_back(exit.start);
      }
  }
  return remake;
}

std::optional<std::string> BeamSchedulerFrames::status() const {
  if (!seen_)
    return std::nullopt;
  if (!stub_)
    return "BEAM scheduler frames: none (" + missing_ + ")";
  char text[200];
  std::snprintf(text, sizeof text,
                "BEAM scheduler frames: process_main's block at rbx - %" PRId64 ", its return "
                "to 0x%" PRIx64 "; %zu piece(s) of normal_exit lead there",
                stub_->blockOffset, *returnAddress_, exits_.size());
  return std::string(text);
}

} // namespace jitsym::plugin
