// BEAM's scheduler frames, from the process and beam's binary.
#include "BeamSchedulerFrames.h"

#include "RuntimeFrames.h"

#include <cinttypes>
#include <algorithm>
#include <cstdio>

namespace jitsym::plugin {

std::optional<uint64_t> BeamSchedulerFrames::processMainReturn(lldb::SBTarget &target) {
  // The C function process_main (exported by beam), which jumps to the stub:
  // its one caller's return address is the stub's return address.
  lldb::SBSymbolContextList found = target.FindSymbols("process_main", lldb::eSymbolTypeCode);
  for (uint32_t i = 0; i < found.GetSize(); ++i) {
    lldb::SBSymbolContext context = found.GetContextAtIndex(i);
    lldb::SBModule module = context.GetModule();
    const std::optional<std::string> text = sectionBytes(module, ".text");
    if (!text)
      continue;
    const std::optional<uint64_t> ra =
        returnAddressOfOnlyCall(*text, module.FindSection(".text").GetFileAddress(),
                                context.GetSymbol().GetStartAddress().GetFileAddress());
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
                                                    JitTables &tables, bool framePointers) {
  std::vector<uint64_t> remake;
  // Gives a piece of code its rule once the stub is known.
  auto rule = [&](const AddressRange &code, std::string_view name) {
    if (isBeamNormalExit(name)) {
      tables.unwind.set(code.start, {beamProcessExitFrame(code.start, code.end, *stub_)});
      return;
    }
    std::optional<int64_t> savedStack;
    if (name.find("global::") != std::string_view::npos && code.end - code.start <= 4096) {
      std::vector<std::string> bytes = read({code});
      savedStack = bytes.size() == 1 ? decodeBeamSavedStack(bytes[0]) : std::nullopt;
      savedStackStubs_ += savedStack.has_value();
    }
    tables.unwind.set(code.start,
                      {beamScanFrame(code.start, code.end, stub_->blockOffset, savedStack)});
  };
  // Frame pointers or not: the BIF-call stub says, else whether BEAM writes
  // a perf map (OTP 25 keeps them only then).
  for (const Symbol *symbol : added)
    if (!framePointers_ && isBeamBifCallStub(tables.symbols.name(*symbol)) &&
        symbol->size > 0 && symbol->size <= 4096) {
      std::vector<std::string> bytes = read({{symbol->address, symbol->end()}});
      if (bytes.size() == 1 && !bytes[0].empty())
        framePointers_ = beamStubKeepsFramePointers(bytes[0]);
    }
  if (framePointers_)
    framePointers = *framePointers_;
  std::vector<std::pair<AddressRange, std::string>> later;
  for (const Symbol *symbol : added) {
    const std::string_view name = tables.symbols.name(*symbol);
    const AddressRange code{symbol->address, symbol->end()};
    if (isBeamNormalExit(name)) {
      exits_.push_back(code);
      later.push_back({code, std::string(name)});
      continue;
    }
    if (!isBeamProcessMain(name)) {
      if (!framePointers) {
        scanned_.push_back(code);
        later.push_back({code, std::string(name)});
      }
      continue;
    }
    if (symbol->size == 0 || symbol->size > 4096)
      continue;
    seen_ = true;
    std::vector<std::string> bytes = read({code});
    stub_ = bytes.size() == 1 ? decodeBeamProcessMain(bytes[0], symbol->address) : std::nullopt;
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
    // What was announced before the stub gets its rules now.
    auto alreadyThere = [&](const AddressRange &piece) -> std::optional<std::string> {
      const Symbol *s = tables.symbols.findByAddress(piece.start);
      if (!s || s->address != piece.start || s->end() != piece.end)
        return std::nullopt;
      return std::string(tables.symbols.name(*s));
    };
    for (const std::vector<AddressRange> *earlier : {&exits_, &scanned_})
      for (const AddressRange &piece : *earlier)
        if (std::optional<std::string> pieceName = alreadyThere(piece)) {
          const bool inThisBatch =
              std::any_of(later.begin(), later.end(),
                          [&](const auto &l) { return l.first.start == piece.start; });
          if (inThisBatch)
            continue; // given below, published with the batch
          rule(piece, *pieceName);
          remake.push_back(piece.start);
        }
  }
  if (stub_)
    for (const auto &[code, name] : later)
      rule(code, name);
  return remake;
}

std::optional<std::string> BeamSchedulerFrames::status() const {
  if (!seen_)
    return std::nullopt;
  if (!stub_)
    return "BEAM scheduler frames: none (" + missing_ + ")";
  char text[320];
  int n = std::snprintf(text, sizeof text,
                        "BEAM scheduler frames: process_main's block at rbx - %" PRId64
                        ", its return to 0x%" PRIx64 "; %zu piece(s) of normal_exit lead there",
                        stub_->blockOffset, *returnAddress_, exits_.size());
  if (!scanned_.empty() && n > 0 && static_cast<size_t>(n) < sizeof text)
    std::snprintf(text + n, sizeof text - n,
                  "; no frame pointers: %zu piece(s) of code unwound by their stack's return "
                  "addresses, %zu stub(s) from the stack pointer they save",
                  scanned_.size(), savedStackStubs_);
  return std::string(text);
}

} // namespace jitsym::plugin
