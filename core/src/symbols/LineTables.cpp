// Line tables per JIT function, with interned file names.
#include "jitsym/symbols/LineTables.h"

#include <algorithm>

namespace jitsym {

uint32_t LineTables::intern(std::string_view file) {
  // Entries of a function mostly share one file: skip the hash for a repeat.
  if (lastFile_ < files_.size() && files_[lastFile_] == file)
    return lastFile_;
  auto [it, inserted] = fileIndex_.try_emplace(std::string(file), uint32_t(files_.size()));
  if (inserted)
    files_.push_back(it->first);
  lastFile_ = it->second;
  return it->second;
}

void LineTables::set(uint64_t start, const std::vector<JitLineEntry> &entries) {
  if (entries.empty()) {
    tables_.erase(start);
    return;
  }
  std::vector<Entry> table;
  table.reserve(entries.size());
  for (const JitLineEntry &e : entries)
    table.push_back({e.address, e.line, e.discriminator, intern(e.file)});
  std::stable_sort(table.begin(), table.end(),
                   [](const Entry &a, const Entry &b) { return a.address < b.address; });
  tables_[start] = std::move(table);
}

void LineTables::setEntryPoint(uint64_t start, std::optional<uint64_t> entry) {
  if (entry && *entry > start)
    entryPoints_[start] = *entry;
  else
    entryPoints_.erase(start);
}

std::optional<uint64_t> LineTables::entryPoint(uint64_t start) const {
  auto found = entryPoints_.find(start);
  if (found == entryPoints_.end())
    return std::nullopt;
  return found->second;
}

void LineTables::move(uint64_t from, uint64_t to) {
  if (from == to)
    return;
  if (auto entry = entryPoints_.find(from); entry != entryPoints_.end()) {
    const uint64_t moved = entry->second - from + to;
    entryPoints_.erase(entry);
    entryPoints_[to] = moved;
  }
  auto it = tables_.find(from);
  if (it == tables_.end() || from == to)
    return;
  std::vector<Entry> table = std::move(it->second);
  tables_.erase(it);
  for (Entry &e : table)
    e.address = e.address - from + to;
  tables_[to] = std::move(table);
}

void LineTables::clear() {
  tables_.clear();
  entryPoints_.clear();
  files_.clear();
  fileIndex_.clear();
  lastFile_ = 0;
}

std::optional<SourceLine> LineTables::find(uint64_t start, uint64_t address) const {
  const std::vector<Entry> *table = entries(start);
  if (!table)
    return std::nullopt;
  auto it = std::upper_bound(table->begin(), table->end(), address,
                             [](uint64_t a, const Entry &e) { return a < e.address; });
  if (it == table->begin())
    return std::nullopt;
  --it;
  if (it->line == 0)
    return std::nullopt; // line 0: code with no source line
  return SourceLine{files_[it->file], it->line, it->column};
}

const std::vector<LineTables::Entry> *LineTables::entries(uint64_t start) const {
  auto it = tables_.find(start);
  return it == tables_.end() ? nullptr : &it->second;
}

} // namespace jitsym
