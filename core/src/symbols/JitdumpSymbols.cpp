// Jitdump records applied to a symbol table and line tables, V8's damaged
// file names repaired on the way (V8Repairs).
#include "jitsym/symbols/JitdumpSymbols.h"

#include "jitsym/base/HexText.h"
#include "jitsym/formats/V8Repairs.h"

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
  pendingEntries_.clear();
  pendingEhFrame_.reset();
  if (options_.unwind)
    options_.unwind->clear();
  owned_->codeStarts.clear();
  header_.reset();
  provisional_.clear();
  provisionalLoads_ = 0;
  saved_.reset();
}

void JitdumpSymbols::onRecord(const JitdumpRecord &record, uint64_t offset) {
  count(apply(record, offset, true));
}

void JitdumpSymbols::beginProvisional() {
  saved_ = Saved{pendingLines_, pendingFiles_.size(), pendingEhFrame_, pendingEntries_};
}

void JitdumpSymbols::endProvisional() {
  if (!saved_)
    return;
  pendingLines_ = std::move(saved_->lines);
  pendingFiles_.resize(saved_->files);
  pendingEhFrame_ = std::move(saved_->ehFrame);
  pendingEntries_ = std::move(saved_->entries);
  saved_.reset();
  if (pendingLines_.empty())
    pendingFiles_.clear();
}

void JitdumpSymbols::onProvisionalRecord(const JitdumpRecord &record, uint64_t offset,
                                         bool seenBefore) {
  if (seenBefore && provisional_.count(offset)) {
    apply(record, offset, false);
    return;
  }
  // Not the file's diagnostics yet: kept with the record.
  const size_t told = diagnostics.size();
  provisionalPass_ = true; // its effect is kept, to be withdrawn if need be
  Effect effect = apply(record, offset, true);
  provisionalPass_ = false;
  effect.diagnostics.assign(std::make_move_iterator(diagnostics.begin() + told),
                            std::make_move_iterator(diagnostics.end()));
  diagnostics.resize(told);
  Effect &kept = provisional_[offset]; // the reader withdrew any earlier one here
  provisionalLoads_ += (effect.kind == Effect::Load) - (kept.kind == Effect::Load);
  kept = std::move(effect);
}

void JitdumpSymbols::onConfirmedRecord(const JitdumpRecord &record, uint64_t offset) {
  auto found = provisional_.find(offset);
  if (found == provisional_.end())
    return onRecord(record, offset);
  apply(record, offset, false);
  count(found->second);
  diagnostics.insert(diagnostics.end(), found->second.diagnostics.begin(),
                     found->second.diagnostics.end());
  if (found->second.kind == Effect::Load)
    --provisionalLoads_;
  provisional_.erase(found);
}

void JitdumpSymbols::onWithdrawnRecord(uint64_t offset) {
  auto found = provisional_.find(offset);
  if (found == provisional_.end())
    return;
  const Effect &effect = found->second;
  if (effect.kind == Effect::Load) {
    --provisionalLoads_;
    // Only if the symbol is still the one it announced: a later announcement
    // that replaced it stays.
    const Symbol *live = table_.findByAddress(effect.address);
    if (live && live->address == effect.address && live->size == effect.size &&
        table_.name(*live) == effect.name) {
      table_.remove(effect.address, effect.size);
      owned_->gone(effect.address); // now rather than when the table applies it
    }
  }
  provisional_.erase(found);
}

void JitdumpSymbols::count(const Effect &effect) {
  switch (effect.kind) {
  case Effect::Load:
    ++loads;
    break;
  case Effect::Move:
    ++moves;
    movesOfUnknownCode += effect.ofUnknownCode;
    break;
  case Effect::Unload:
    ++unloads;
    unloadsOfUnknownCode += effect.ofUnknownCode;
    break;
  case Effect::Other:
    break;
  }
}

JitdumpSymbols::Effect JitdumpSymbols::apply(const JitdumpRecord &record, uint64_t offset,
                                             bool named) {
  if (const auto *load = std::get_if<JitCodeLoad>(&record.body))
    return this->load(*load, named);
  if (const auto *move = std::get_if<JitCodeMove>(&record.body)) {
    if (named)
      return this->move(*move);
    Effect effect;
    effect.kind = Effect::Move;
    return effect;
  }
  if (const auto *unload = std::get_if<JitCodeUnload>(&record.body)) {
    if (named)
      return this->unload(*unload);
    Effect effect;
    effect.kind = Effect::Unload;
    return effect;
  }
  if (const auto *info = std::get_if<JitDebugInfo>(&record.body)) {
    // The record's bytes go away after this call: keep the file names.
    std::vector<JitLineEntry> entries = info->entries;
    for (JitLineEntry &entry : entries) {
      if (pendingFiles_.empty() || pendingFiles_.back() != entry.file)
        pendingFiles_.emplace_back(entry.file);
      entry.file = pendingFiles_.back();
    }
    pendingLines_[info->codeAddress] = std::move(entries);
  } else if (const auto *entry = std::get_if<JitCodeEntry>(&record.body)) {
    pendingEntries_[entry->codeAddress] = entry->entryAddress;
  } else if (const auto *unwind = std::get_if<JitUnwindingInfo>(&record.body)) {
    if (options_.unwind)
      pendingEhFrame_.emplace(std::string(ehFrameOf(*unwind)), offset);
  }
  return {};
}

JitdumpSymbols::Effect JitdumpSymbols::load(const JitCodeLoad &load, bool named) {
  Effect effect;
  effect.kind = Effect::Load;
  effect.address = load.codeAddress;
  effect.size = load.codeSize;
  if (provisionalPass_) // a file's record is never withdrawn: no copy of its name
    effect.name = std::string(boundedSymbolName(load.name));
  if (!named) { // what is waiting for this code goes, as it went when it was named
    loadLines(load, false);
    loadEntryPoint(load, false);
    pendingEhFrame_.reset();
    return effect;
  }
  table_.add(load.codeAddress, load.codeSize, load.name, kOwnedFlag);
  if (options_.trackCodeStarts)
    owned_->codeStarts.insert(load.codeAddress);
  loadLines(load, true);
  loadEntryPoint(load, true);
  if (options_.unwind)
    loadUnwindTables(load);
  return effect;
}

// After loadLines, which may erase what the code's start had.
void JitdumpSymbols::loadEntryPoint(const JitCodeLoad &load, bool named) {
  std::optional<uint64_t> entry;
  if (auto pending = pendingEntries_.find(load.codeAddress); pending != pendingEntries_.end()) {
    entry = pending->second;
    pendingEntries_.erase(pending);
  }
  if (!named)
    return;
  if (entry && *entry >= load.codeAddress + load.codeSize)
    entry.reset(); // not in this code
  lines_.setEntryPoint(load.codeAddress, entry);
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

void JitdumpSymbols::loadLines(const JitCodeLoad &load, bool named) {
  auto pending = pendingLines_.find(load.codeAddress);
  if (!named || pending == pendingLines_.end() || hasBytecodeOffsetsForLines(load.name)) {
    if (pending != pendingLines_.end())
      pendingLines_.erase(pending);
    if (named)
      lines_.erase(load.codeAddress);
    if (pendingLines_.empty() && !saved_)
      pendingFiles_.clear();
    return;
  }
  std::vector<JitLineEntry> entries = std::move(pending->second);
  pendingLines_.erase(pending);
  for (JitLineEntry &entry : entries)
    entry.address = entry.address >= load.codeAddress + kPerfDebugAddressBias
                        ? entry.address - kPerfDebugAddressBias
                        : load.codeAddress;
  std::list<std::string> files; // backs the repaired names until set() copies them
  repairV8FileNames(entries, load.name, files);
  lines_.set(load.codeAddress, entries);
  if (pendingLines_.empty() && !saved_) // else saved_ still names them
    pendingFiles_.clear();
}

JitdumpSymbols::Effect JitdumpSymbols::move(const JitCodeMove &move) {
  Effect effect;
  effect.kind = Effect::Move;
  const Symbol *old = table_.findByAddress(move.oldAddress);
  if (!old || old->address != move.oldAddress) {
    effect.ofUnknownCode = true;
    return effect;
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
  return effect;
}

// Only the exact code the record names goes: if newer code took the range
// already, the unload is stale and the newer code stays.
JitdumpSymbols::Effect JitdumpSymbols::unload(const JitCodeUnload &unload) {
  Effect effect;
  effect.kind = Effect::Unload;
  const Symbol *live = table_.findByAddress(unload.codeAddress);
  if (!live || live->address != unload.codeAddress || live->size != unload.codeSize) {
    effect.ofUnknownCode = true;
    return effect;
  }
  table_.remove(unload.codeAddress, unload.codeSize);
  owned_->gone(unload.codeAddress); // now rather than when the table applies it
  return effect;
}

} // namespace jitsym
