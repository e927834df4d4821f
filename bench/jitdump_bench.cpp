// Reading a 100 MB jitdump (code bytes included, V8-like record mix) into a
// symbol table with line tables, and an incremental read of what was appended.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

#include "JitdumpBytes.h"
#include "jitsym/files/JitdumpReader.h"
#include "jitsym/symbols/JitdumpSymbols.h"
#include "jitsym/files/SymbolSource.h"

using namespace jitsym;
using jitsym::test::appendRecord;
using jitsym::test::put;

namespace {

// V8 11.3's .eh_frame and .eh_frame_hdr for TurboFan code (from a real
// `node --perf-prof` dump), its FDE's code address and size set for `size`.
std::string v8Unwinding(uint64_t size) {
  static const unsigned char kV8[88] = {
      0x18, 0, 0, 0, 0, 0, 0, 0, 0x03, 'z', 'L', 'R', 0, 0x01, 0x78, 0x10, 0x02, 0xff, 0x1b,
      0x0c, 0x07, 0x08, 0x90, 0x01, 0, 0, 0, 0, 0x20, 0, 0, 0, 0x20, 0, 0, 0, 0, 0, 0, 0,
      0, 0, 0, 0, 0, 0x4f, 0x0e, 0x10, 0x86, 0x02, 0x43, 0x0d, 0x06, 0x02, 0x4b, 0x0d, 0x07,
      0x41, 0x0e, 0x08, 0x52, 0x0c, 0x06, 0x10, 0, 0, 0, 0, 0x01, 0x1b, 0x03, 0x3b, 0xb8,
      0xff, 0xff, 0xff, 0x01, 0, 0, 0, 0xac, 0xfd, 0xff, 0xff, 0xd8, 0xff, 0xff, 0xff};
  std::string data(reinterpret_cast<const char *>(kV8), sizeof(kV8));
  const int32_t start = -int32_t(((size + 7) & ~uint64_t(7)) + 0x24); // pc-relative
  std::memcpy(&data[0x24], &start, 4);
  const uint32_t range = uint32_t(size);
  std::memcpy(&data[0x28], &range, 4);
  return data;
}

// Records for functions [first, first + count): every function has code of
// 0.5-2.5 KiB and an unwinding record; one in eight (optimized code) has line
// entries and a real unwind table, the others an empty one.
std::string functions(uint64_t first, uint64_t count) {
  std::string out, body;
  for (uint64_t i = first; i < first + count; ++i) {
    const uint64_t address = 0x7f0000000000ull + i * 0x1000;
    const uint64_t size = 512 + (i * 7919) % 2048;
    const std::string name = "JS:*fn_" + std::to_string(i) + " /srv/app/lib/module_" +
                             std::to_string(i % 977) + ".js:" + std::to_string(i % 4000 + 1) +
                             ":7";
    if (i % 8 == 0) {
      body.clear();
      put<uint64_t>(body, address);
      put<uint64_t>(body, 8);
      for (uint64_t e = 0; e < 8; ++e) {
        put<uint64_t>(body, address + 0x40 + e * size / 8);
        put<uint32_t>(body, static_cast<uint32_t>(i % 4000 + 1 + e));
        put<uint32_t>(body, 3);
        body += "/srv/app/lib/module_" + std::to_string(i % 977) + ".js";
        body += '\0';
      }
      body.append(-body.size() % 8, '\0');
      appendRecord(out, JitdumpRecordId::CodeDebugInfo, body);
    }
    const std::string unwinding = i % 8 == 0
                                      ? v8Unwinding(size)
                                      : std::string("\x01\x1b\x03\x3b", 4) + std::string(16, '\0');
    body.clear();
    put<uint64_t>(body, unwinding.size());
    put<uint64_t>(body, 20);                                  // .eh_frame_hdr
    put<uint64_t>(body, i % 8 == 0 ? unwinding.size() : 0);  // mapped_size
    body += unwinding;
    body.append(-body.size() % 8, '\0');
    appendRecord(out, JitdumpRecordId::CodeUnwindingInfo, body);
    test::appendCodeLoad(out, address, size, name, i);
  }
  return out;
}

std::string dumpPath() {
  const char *dir = std::getenv("JITSYM_BENCH_DIR");
  return std::string(dir ? dir : "/tmp") + "/jitsym-bench-100mb.dump";
}

void write(const std::string &path, const std::string &bytes, const char *mode) {
  std::FILE *f = std::fopen(path.c_str(), mode);
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
}

// About 100 MB: 60k functions.
constexpr uint64_t kFunctions = 60000;

// The 100 MB dump the load benchmarks read, written once per run.
const std::string &loadDump() {
  static const std::string path = [] {
    const std::string p = dumpPath();
    write(p, test::jitdumpHeader() + functions(0, kFunctions), "wb");
    return p;
  }();
  return path;
}

// The same counters for every load benchmark (CSV output needs them all).
void reportLoad(benchmark::State &state, size_t symbols, size_t unwindTables) {
  struct stat st {};
  ::stat(loadDump().c_str(), &st);
  state.counters["symbols"] = double(symbols);
  state.counters["MB"] = double(st.st_size) / 1e6;
  state.counters["unwind_tables"] = double(unwindTables);
}

} // namespace

static void BM_LoadJitdump100MB(benchmark::State &state) {
  const std::string &path = loadDump();
  size_t symbols = 0;
  for (auto _ : state) {
    auto loaded = loadJitdump(path);
    if (!loaded) {
      state.SkipWithError("load failed");
      return;
    }
    symbols = loaded->tables.symbols.size();
    benchmark::DoNotOptimize(symbols);
  }
  reportLoad(state, symbols, 0); // unwind tables are not kept
}
BENCHMARK(BM_LoadJitdump100MB)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(4)
    ->Repetitions(9)
    ->ReportAggregatesOnly(true);

// What the plugin does: the same file read with unwind tables kept.
static void BM_LoadJitdump100MBWithUnwindTables(benchmark::State &state) {
  const std::string &path = loadDump();
  size_t tables = 0, symbols = 0;
  for (auto _ : state) {
    SymbolTable table;
    LineTables lines;
    UnwindTables unwind;
    JitdumpSymbolsOptions options;
    options.unwind = &unwind;
    JitdumpSymbols sink(table, lines, options);
    JitdumpReader reader(path);
    if (!reader.read(sink) || !sink.diagnostics.empty()) {
      state.SkipWithError("read failed");
      return;
    }
    tables = unwind.functionCount();
    symbols = table.size();
    benchmark::DoNotOptimize(symbols);
  }
  reportLoad(state, symbols, tables);
}
BENCHMARK(BM_LoadJitdump100MBWithUnwindTables)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(4)
    ->Repetitions(9)
    ->ReportAggregatesOnly(true);

// After the 100 MB were read, 100 functions more are appended.
static void BM_JitdumpIncremental100After100MB(benchmark::State &state) {
  const std::string path = dumpPath() + ".inc";
  write(path, test::jitdumpHeader() + functions(0, kFunctions), "wb");
  SymbolTable table;
  LineTables lines;
  JitdumpSymbols sink(table, lines);
  JitdumpReader reader(path);
  (void)reader.read(sink);
  table.takeChanges();
  uint64_t next = kFunctions;
  for (auto _ : state) {
    state.PauseTiming();
    write(path, functions(next, 100), "ab");
    next += 100;
    state.ResumeTiming();
    auto stats = reader.read(sink);
    SymbolChanges changes = table.takeChanges();
    if (!stats || changes.added.size() != 100)
      state.SkipWithError("unexpected incremental result");
  }
  ::unlink(path.c_str());
}
BENCHMARK(BM_JitdumpIncremental100After100MB)->Unit(benchmark::kMicrosecond)->Iterations(30);
