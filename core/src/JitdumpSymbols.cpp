// Jitdump records applied to a symbol table and line tables, V8's damaged
// file names repaired on the way (V8Repairs).
#include "jitsym/JitdumpSymbols.h"

#include "jitsym/HexText.h"
#include "jitsym/V8Repairs.h"

namespace jitsym {

JitdumpSymbols::JitdumpSymbols(SymbolTable &table, LineTables &lines,
                               JitdumpSymbolsOptions options)
    : table_(table), lines_(lines), options_(std::move(options)),
      owned_(std::make_shared<Owned>(Owned{lines, options_.unwind, {}})) {
  table_.onOwnedGone([owned = owned_](uint64_t start) { owned->gone(start); });
}

void JitdumpSymbols::onRewrite() {
  table_.clear();
  lines_.clear();
  pendingLines_.clear();
  pendingFiles_.clear();
  pendingEhFrame_.reset();
  if (options_.unwind)
    options_.unwind->clear();
  owned_->codeStarts.clear();
  header_.reset();
}

void JitdumpSymbols::onRecord(const JitdumpRecord &record, uint64_t offset) {
  if (const auto *load = std::get_if<JitCodeLoad>(&record.body)) {
    this->load(*load);
  } else if (const auto *move = std::get_if<JitCodeMove>(&record.body)) {
    this->move(*move);
  } else if (const auto *unload = std::get_if<JitCodeUnload>(&record.body)) {
    this->unload(*unload);
  } else if (const auto *info = std::get_if<JitDebugInfo>(&record.body)) {
    // The record's bytes go away after this call: keep the file names.
    std::vector<JitLineEntry> entries = info->entries;
    for (JitLineEntry &entry : entries) {
      if (pendingFiles_.empty() || pendingFiles_.back() != entry.file)
        pendingFiles_.emplace_back(entry.file);
      entry.file = pendingFiles_.back();
    }
    pendingLines_[info->codeAddress] = std::move(entries);
  } else if (const auto *unwind = std::get_if<JitUnwindingInfo>(&record.body)) {
    if (options_.unwind)
      pendingEhFrame_.emplace(std::string(ehFrameOf(*unwind)), offset);
  }
}

void JitdumpSymbols::load(const JitCodeLoad &load) {
  ++loads;
  table_.add(load.codeAddress, load.codeSize, load.name, kOwnedFlag);
  if (options_.trackCodeStarts)
    owned_->codeStarts.insert(load.codeAddress);
  loadLines(load);
  if (options_.unwind)
    loadUnwindTables(load);
}

void JitdumpSymbols::loadUnwindTables(const JitCodeLoad &load) {
  std::vector<CallFrameInfo> frames;
  if (pendingEhFrame_ && !pendingEhFrame_->first.empty()) {
    const uint64_t recordOffset = pendingEhFrame_->second;
    auto problem = [&](const std::string &what) {
      diagnostics.push_back({options_.path, 0,
                             "byte offset " + std::to_string(recordOffset) +
                                 ": CODE_UNWINDING_INFO: " + what + " (unwind table skipped)"});
    };
    llvm::Expected<std::vector<CallFrameInfo>> parsed = parseEhFrame(
        pendingEhFrame_->first, ehFrameAddressAfterCode(load.codeAddress, load.codeSize));
    if (!parsed) {
      problem(llvm::toString(parsed.takeError()));
    } else {
      const uint64_t codeEnd = load.codeAddress + load.codeSize;
      for (CallFrameInfo &frame : *parsed) {
        if (frame.start < load.codeAddress || frame.end > codeEnd) {
          problem("an FDE covers " + hexText(frame.start) + "-" + hexText(frame.end) +
                  ", outside the code at " + hexText(load.codeAddress) + "-" + hexText(codeEnd));
          frames.clear();
          break;
        }
        frames.push_back(std::move(frame));
      }
    }
  }
  pendingEhFrame_.reset();
  options_.unwind->set(load.codeAddress, std::move(frames));
}

void JitdumpSymbols::loadLines(const JitCodeLoad &load) {
  auto pending = pendingLines_.find(load.codeAddress);
  if (pending == pendingLines_.end() || hasBytecodeOffsetsForLines(load.name)) {
    if (pending != pendingLines_.end())
      pendingLines_.erase(pending);
    lines_.erase(load.codeAddress);
    return;
  }
  std::vector<JitLineEntry> entries = std::move(pending->second);
  pendingLines_.erase(pending);
  for (JitLineEntry &entry : entries)
    entry.address = entry.address >= load.codeAddress + kPerfDebugAddressBias
                        ? entry.address - kPerfDebugAddressBias
                        : load.codeAddress;
  std::deque<std::string> files; // backs the repaired names until set() copies them
  repairV8FileNames(entries, load.name, files);
  lines_.set(load.codeAddress, entries);
  if (pendingLines_.empty())
    pendingFiles_.clear();
}

void JitdumpSymbols::move(const JitCodeMove &move) {
  ++moves;
  const Symbol *old = table_.findByAddress(move.oldAddress);
  if (!old || old->address != move.oldAddress) {
    ++movesOfUnknownCode;
    return;
  }
  const std::string name(table_.name(*old));
  table_.remove(move.oldAddress, move.codeSize);
  table_.add(move.newAddress, move.codeSize, name, kOwnedFlag);
  if (options_.trackCodeStarts) {
    owned_->codeStarts.erase(move.oldAddress);
    owned_->codeStarts.insert(move.newAddress);
  }
  lines_.move(move.oldAddress, move.newAddress);
  if (options_.unwind)
    options_.unwind->move(move.oldAddress, move.newAddress);
}

// Only the exact code the record names goes: if newer code took the range
// already, the unload is stale and the newer code stays.
void JitdumpSymbols::unload(const JitCodeUnload &unload) {
  ++unloads;
  const Symbol *live = table_.findByAddress(unload.codeAddress);
  if (!live || live->address != unload.codeAddress || live->size != unload.codeSize) {
    ++unloadsOfUnknownCode;
    return;
  }
  table_.remove(unload.codeAddress, unload.codeSize);
  owned_->gone(unload.codeAddress); // now rather than when the table applies it
}

} // namespace jitsym
