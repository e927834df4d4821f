// libFuzzer target: /proc/PID/maps parsing and the JIT address space built from it.
//
// Checked invariants: every mapping has start < end and permissions/paths taken
// from its own line; every line is either a mapping, a diagnostic or blank, and
// diagnostics carry in-range line numbers; for well-formed (disjoint) maps, the
// JIT runs contain exactly the anonymous/memfd/deleted non-special mappings
// and the executable copies of a file's mapped code.
#include "jitsym/formats/MemoryMap.h"
#include "jitsym/plan/RegionPlanner.h"
#include "jitsym/plan/Regions.h"

#include <algorithm>
#include <cstddef>
#include "FuzzCheck.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

using namespace jitsym;

namespace {


} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  std::vector<Diagnostic> diagnostics;
  std::vector<Mapping> mappings = parseMemoryMap(text, "fuzz-maps", &diagnostics);

  // Count lines the way the parser defines them: split on '\n', a final line
  // without a newline still counts, an empty input has none.
  uint64_t lines = 0, blank = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == std::string_view::npos ? text.size() : nl;
    ++lines;
    blank += end == pos;
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
  }
  CHECK(mappings.size() + diagnostics.size() + blank == lines);

  uint64_t previousLine = 0;
  for (const Diagnostic &d : diagnostics) {
    CHECK(d.file == "fuzz-maps");
    CHECK(d.line >= 1 && d.line <= lines);
    CHECK(d.line > previousLine);
    CHECK(!d.message.empty());
    previousLine = d.line;
    CHECK(!d.str().empty());
  }

  for (const Mapping &m : mappings) {
    CHECK(m.start < m.end);
    CHECK(m.path.find('\n') == std::string::npos);
    CHECK(m.path.empty() || m.path.front() != ' ');
    // A path is at most what is left of the input.
    CHECK(m.path.size() <= text.size());
    // The classifications never both hold.
    CHECK(!(m.isFileBacked() && m.isSpecial()));
    if (m.isFileBacked())
      CHECK(m.inode != 0 && m.path.front() == '/');
  }

  // A parse of the parser's own output format is stable: re-render and re-parse.
  std::string rendered;
  for (const Mapping &m : mappings) {
    char head[128];
    std::snprintf(head, sizeof(head), "%llx-%llx %c%c%c%c %llx 00:00 %llu ",
                  (unsigned long long)m.start, (unsigned long long)m.end,
                  m.read ? 'r' : '-', m.write ? 'w' : '-', m.execute ? 'x' : '-',
                  m.shared ? 's' : 'p', (unsigned long long)m.offset,
                  (unsigned long long)m.inode);
    rendered += head;
    rendered += m.path;
    rendered += '\n';
  }
  std::vector<Diagnostic> again;
  std::vector<Mapping> reparsed = parseMemoryMap(rendered, "rendered", &again);
  CHECK(again.empty());
  CHECK(reparsed.size() == mappings.size());
  for (size_t i = 0; i < mappings.size(); ++i) {
    const Mapping &a = mappings[i], &b = reparsed[i];
    CHECK(a.start == b.start && a.end == b.end && a.offset == b.offset && a.inode == b.inode);
    CHECK(a.read == b.read && a.write == b.write && a.execute == b.execute &&
          a.shared == b.shared);
    // Trailing blanks of a path are kept verbatim by both parses.
    CHECK(a.path == b.path);
  }

  // The JIT address space, for maps whose mappings do not overlap (the kernel
  // never produces overlapping ones).
  std::vector<Mapping> sorted = mappings;
  std::sort(sorted.begin(), sorted.end(),
            [](const Mapping &a, const Mapping &b) { return a.start < b.start; });
  bool disjoint = true;
  for (size_t i = 1; i < sorted.size(); ++i)
    disjoint &= sorted[i - 1].end <= sorted[i].start;
  JitAddressSpace space = JitAddressSpace::fromMemoryMap(mappings);
  CHECK(space.hasMemoryMap());
  if (disjoint) {
    for (const Mapping &m : sorted) {
      // V8 maps copies of its binary's builtins: file-backed, yet JIT memory.
      bool jit = (!m.isFileBacked() || isCopyOfMappedCode(m, sorted)) && !m.isSpecial();
      for (uint64_t probe : {m.start, m.end - 1, m.start + (m.end - m.start) / 2}) {
        std::optional<AddressRange> run = space.runContaining(probe);
        CHECK(run.has_value() == jit);
        if (run) {
          CHECK(run->contains(probe));
          CHECK(run->start <= m.start && m.end <= run->end);
          // A one-byte symbol there: its region lies in its window and run.
          SymbolTable table;
          table.add(probe, 1, "f");
          RegionPlanner planner(table, space);
          std::optional<AddressRange> section = planner.sectionOf(probe);
          CHECK(section.has_value());
          CHECK(section->contains(probe));
          CHECK(section->start >= run->start && section->end <= run->end);
          const AddressRange window = planner.windowOf(probe);
          CHECK(window.contains(section->start));
        }
      }
    }
  }
  return 0;
}
