// Jitdump records applied to a symbol table and line tables.
#include "jitsym/JitdumpSymbols.h"

#include <algorithm>

#include "jitsym/HexText.h"

namespace jitsym {
namespace {

bool garbled(std::string_view text) {
  return std::any_of(text.begin(), text.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

} // namespace

bool hasBytecodeOffsetsForLines(std::string_view codeName) {
  return codeName.substr(0, 4) == "JS:^";
}

std::optional<std::string> repairedFileName(std::string_view file, std::string_view codeName) {
  if (!garbled(file))
    return std::string(file);
  // V8 names the code and its lines after the same script: the path in the
  // name ("JS:*f /a/app.js:3:7") is the intact copy if its length is the same.
  std::string_view path = codeName.substr(codeName.rfind(' ') + 1);
  for (int field = 0; field < 2; ++field) { // drop ":column", then ":line"
    const size_t colon = path.rfind(':');
    if (colon == std::string_view::npos || colon + 1 == path.size() ||
        !std::all_of(path.begin() + colon + 1, path.end(),
                     [](char c) { return c >= '0' && c <= '9'; }))
      return std::nullopt; // not a "path:line:column" name
    path = path.substr(0, colon);
  }
  if (path.size() == file.size() && !garbled(path))
    return std::string(path);
  return std::nullopt;
}

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
  std::deque<std::string> files; // repaired names, one per run of equal names
  std::string_view original;
  std::optional<std::string> repaired;
  for (JitLineEntry &entry : entries) {
    entry.address = entry.address >= load.codeAddress + kPerfDebugAddressBias
                        ? entry.address - kPerfDebugAddressBias
                        : load.codeAddress;
    if (files.empty() || entry.file != original) {
      original = entry.file;
      repaired = repairedFileName(entry.file, load.name);
      files.push_back(repaired.value_or(""));
    }
    entry.file = files.back();
    if (!repaired)
      entry.line = 0; // a file name lost to V8: these addresses have no line
  }
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
