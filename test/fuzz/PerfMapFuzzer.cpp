// libFuzzer target: perf map parsing and the symbol table fed from it.
//
// Input: perf map text. When the table is queried or its changes published
// between announcements is derived from the entries, so the fuzzer steers it.
// Checked invariants:
//  - parsePerfMapChunk consumes exactly the complete lines, reports errors with
//    line numbers inside the chunk, and agrees with parsePerfMapLine line by line;
//  - entries point into the input, have non-empty trimmed names, do not overflow;
//  - the SymbolTable's content matches a naive model of "a later announcement
//    replaces every symbol it overlaps" after any sequence of adds and queries;
//  - live symbols are sorted and disjoint and findByAddress/findByName find them;
//  - applying takeChanges() to what the debugger was shown reproduces the table
//    (removed lists only published symbols; added only live, unpublished ones);
//  - assign() of a re-read reports exactly the differences.
#include "jitsym/formats/PerfMapParser.h"
#include "jitsym/symbols/SymbolTable.h"

#include <cstddef>
#include "FuzzCheck.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <vector>

using namespace jitsym;

namespace {


struct Owned {
  uint64_t address, size;
  std::string name;
  bool operator==(const Owned &o) const {
    return address == o.address && size == o.size && name == o.name;
  }
};

uint64_t endOf(uint64_t address, uint64_t size) { return address + (size ? size : 1); }

// BUG (reported, see SymbolTableTest ZeroSizeSymbolAtLastAddress): a zero-size
// symbol at 0xffffffffffffffff makes Symbol::end() wrap to 0. Such entries are
// kept out of the table here so that the fuzzer keeps looking for other bugs.
bool wraps(uint64_t address, uint64_t size) { return endOf(address, size) < address; }

bool overlaps(const Owned &a, const Owned &b) {
  return a.address < endOf(b.address, b.size) && b.address < endOf(a.address, a.size);
}

// Sequential reference semantics, keyed by address.
class Model {
public:
  void add(uint64_t address, uint64_t size, std::string_view name) {
    uint64_t end = endOf(address, size);
    auto it = live_.upper_bound(address);
    if (it != live_.begin() && endOf(std::prev(it)->first, std::prev(it)->second.size) > address)
      --it;
    auto first = it;
    size_t overlapping = 0;
    for (auto j = it; j != live_.end() && j->first < end; ++j)
      ++overlapping;
    if (overlapping == 1 && first->first == address && first->second.size == size &&
        first->second.name == name)
      return; // identical re-announcement
    while (it != live_.end() && it->first < end)
      it = live_.erase(it);
    live_[address] = Owned{address, size, std::string(name)};
  }
  const std::map<uint64_t, Owned> &live() const { return live_; }
  void resetTo(const std::vector<Owned> &symbols) {
    live_.clear();
    for (const Owned &o : symbols)
      live_[o.address] = o;
  }
  std::vector<Owned> contents() const {
    std::vector<Owned> out;
    for (const auto &entry : live_)
      out.push_back(entry.second);
    return out;
  }

private:
  std::map<uint64_t, Owned> live_;
};

std::vector<Owned> contentsOf(const SymbolTable &table) {
  std::vector<Owned> out;
  table.forEach([&](const Symbol &s) {
    out.push_back({s.address, s.size, std::string(table.name(s))});
  });
  return out;
}

void checkTable(const SymbolTable &table) {
  std::vector<const Symbol *> all;
  table.forEach([&](const Symbol &s) { all.push_back(&s); });
  CHECK(all.size() == table.size());
  for (size_t i = 0; i < all.size(); ++i) {
    const Symbol &s = *all[i];
    if (i > 0) {
      CHECK(all[i - 1]->address < s.address);
      CHECK(all[i - 1]->end() <= s.address); // disjoint
    }
    CHECK(table.findByAddress(s.address) == &s);
    CHECK(table.findByAddress(s.end() - 1) == &s);
    if (s.address > 0) {
      const Symbol *before = table.findByAddress(s.address - 1);
      CHECK(before != &s);
      CHECK(before == nullptr || (i > 0 && before == all[i - 1]));
    }
    const Symbol *after = table.findByAddress(s.end());
    CHECK(after != &s);
    CHECK(after == nullptr || (i + 1 < all.size() && after == all[i + 1]));
  }
  // findByName on a few names.
  for (size_t i = 0; i < all.size(); i += 1 + all.size() / 4) {
    std::vector<const Symbol *> found = table.findByName(table.name(*all[i]));
    bool present = false;
    for (const Symbol *f : found) {
      CHECK(table.name(*f) == table.name(*all[i]));
      present |= f == all[i];
    }
    CHECK(present);
  }
  // forEachInRange agrees with the full walk.
  if (!all.empty()) {
    uint64_t begin = all[all.size() / 2]->address, end = all.back()->address;
    size_t expected = 0, seen = 0;
    for (const Symbol *s : all)
      expected += s->address >= begin && s->address < end;
    table.forEachInRange(begin, end, [&](const Symbol &) { ++seen; });
    CHECK(seen == expected);
  }
}

// What the debugger was shown: published symbols by address.
void applyChanges(SymbolTable &table, std::map<uint64_t, Owned> &shown) {
  SymbolChanges changes = table.takeChanges();
  for (const RemovedRange &r : changes.removed) {
    auto it = shown.find(r.address);
    CHECK(it != shown.end()); // only published symbols are removed
    CHECK(endOf(it->second.address, it->second.size) == r.end);
    shown.erase(it);
  }
  for (size_t i = 0; i < changes.added.size(); ++i) {
    const Symbol *s = changes.added[i];
    if (i > 0)
      CHECK(changes.added[i - 1]->address < s->address);
    CHECK(table.findByAddress(s->address) == s); // live
    CHECK(shown.find(s->address) == shown.end()); // not shown already
    shown[s->address] = Owned{s->address, s->size, std::string(table.name(*s))};
  }
  std::vector<Owned> shownList;
  for (const auto &entry : shown)
    shownList.push_back(entry.second);
  CHECK(shownList == contentsOf(table));
  CHECK(table.takeChanges().empty());
}

std::vector<Owned> parseAndCheck(std::string_view text) {
  std::vector<Owned> entries;
  std::vector<std::pair<uint64_t, std::string>> errors;
  const uint64_t firstLine = 7;
  PerfMapChunkResult result = parsePerfMapChunk(
      text, firstLine,
      [&](const PerfMapEntry &e) {
        CHECK(e.name.data() >= text.data() &&
              e.name.data() + e.name.size() <= text.data() + text.size());
        CHECK(!e.name.empty());
        CHECK(e.name.front() != ' ' && e.name.front() != '\t');
        CHECK(e.name.back() != ' ' && e.name.back() != '\t');
        CHECK(e.name.find('\n') == std::string_view::npos);
        CHECK(e.address + e.size >= e.address);
        entries.push_back({e.address, e.size, std::string(e.name)});
      },
      [&](uint64_t line, std::string message) {
        CHECK(!message.empty());
        errors.emplace_back(line, std::move(message));
      });

  // Exactly the complete lines are consumed.
  CHECK(result.bytesConsumed <= text.size());
  CHECK(result.bytesConsumed == 0 || text[result.bytesConsumed - 1] == '\n');
  CHECK(text.find('\n', result.bytesConsumed) == std::string_view::npos);
  uint64_t newlines = 0;
  for (size_t i = 0; i < result.bytesConsumed; ++i)
    newlines += text[i] == '\n';
  CHECK(result.linesConsumed == newlines);

  // Line by line, parsePerfMapLine gives the same answers.
  size_t pos = 0, entryIndex = 0, errorIndex = 0;
  uint64_t line = firstLine;
  while (pos < result.bytesConsumed) {
    size_t nl = text.find('\n', pos);
    std::string_view l = text.substr(pos, nl - pos);
    bool blank = l.find_first_not_of(" \t\r") == std::string_view::npos; // whitespace only
    if (!blank) {
      PerfMapEntry entry;
      std::string error;
      if (parsePerfMapLine(l, entry, error)) {
        CHECK(entryIndex < entries.size());
        CHECK(entries[entryIndex].address == entry.address);
        CHECK(entries[entryIndex].size == entry.size);
        CHECK(entries[entryIndex].name == entry.name);
        ++entryIndex;
      } else {
        CHECK(errorIndex < errors.size());
        CHECK(errors[errorIndex].first == line);
        CHECK(errors[errorIndex].second == error);
        ++errorIndex;
      }
    }
    ++line;
    pos = nl + 1;
  }
  CHECK(entryIndex == entries.size());
  CHECK(errorIndex == errors.size());

  // The unterminated tail parses on its own without crashing.
  if (result.bytesConsumed < text.size()) {
    PerfMapEntry entry;
    std::string error;
    (void)parsePerfMapLine(text.substr(result.bytesConsumed), entry, error);
  }
  return entries;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);

  std::vector<Owned> entries = parseAndCheck(text);

  SymbolTable table;
  Model model;
  std::map<uint64_t, Owned> shown;
  // Announcements since the table last applied its batch, and the model then.
  std::vector<Owned> batch;
  std::map<uint64_t, Owned> liveAtFlush;
  auto beforeQuery = [&] {
    batch.clear();
    liveAtFlush = model.live();
  };
  size_t step = 0;
  for (const Owned &e : entries) {
    if (wraps(e.address, e.size))
      continue;
    table.add(e.address, e.size, e.name);
    model.add(e.address, e.size, e.name);
    batch.push_back(e);
    bool query = (e.name.size() + step) % 3 == 0;
    bool publish = ((e.address >> 4) ^ step) % 4 == 0;
    ++step;
    if (query) {
      beforeQuery();
      CHECK(table.findByAddress(e.address) != nullptr);
      CHECK(table.name(*table.findByAddress(e.address)) == e.name);
      CHECK(contentsOf(table) == model.contents());
    }
    if (publish) {
      beforeQuery();
      applyChanges(table, shown);
    }
  }
  beforeQuery();
  CHECK(contentsOf(table) == model.contents());
  checkTable(table);
  applyChanges(table, shown);

  // A re-read of a rewritten map: the second half announced again, in reverse.
  SymbolTable fresh;
  Model freshModel;
  for (size_t i = entries.size(); i-- > entries.size() / 2;) {
    const Owned &e = entries[i];
    if (wraps(e.address, e.size))
      continue;
    fresh.add(e.address, e.size, e.name);
    freshModel.add(e.address, e.size, e.name);
  }
  CHECK(contentsOf(fresh) == freshModel.contents());
  table.assign(std::move(fresh));
  CHECK(contentsOf(table) == freshModel.contents());
  checkTable(table);
  applyChanges(table, shown);

  // Clearing removes everything that was shown.
  table.clear();
  CHECK(table.size() == 0);
  applyChanges(table, shown);
  CHECK(shown.empty());
  return 0;
}
