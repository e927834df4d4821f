// Reading and indexing large perf maps: the whole-file load, an incremental read
// of 1k appended lines after 1M, and the memory held per symbol.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>

#include "jitsym/files/PerfMapReader.h"
#include "jitsym/files/SymbolSource.h"
#include "jitsym/files/TableSink.h"

using namespace jitsym;

// A Node-like map: mostly rising addresses in a few code spaces, V8-style names.
static void writeMap(const std::string &path, uint64_t lines, uint64_t firstIndex = 0,
                     bool append = false) {
  std::FILE *f = std::fopen(path.c_str(), append ? "a" : "w");
  for (uint64_t i = firstIndex; i < firstIndex + lines; ++i) {
    uint64_t space = i % 4;
    uint64_t address = 0x3a0000000000ull + space * 0x100000000ull + (i / 4) * 0x140;
    std::fprintf(f, "%llx %x JS:*fn_%llu /srv/app/lib/module_%llu.js:%llu:%llu\n",
                 static_cast<unsigned long long>(address), 0x120 + static_cast<unsigned>(i % 32),
                 static_cast<unsigned long long>(i), static_cast<unsigned long long>(i % 977),
                 static_cast<unsigned long long>(i % 4000 + 1),
                 static_cast<unsigned long long>(i % 80 + 1));
  }
  std::fclose(f);
}

static std::string mapPath() {
  const char *dir = std::getenv("JITSYM_BENCH_DIR");
  return std::string(dir ? dir : "/tmp") + "/jitsym-bench-1m.map";
}

static void BM_LoadMap1M(benchmark::State &state) {
  const std::string path = mapPath();
  writeMap(path, 1000000);
  size_t bytes = 0;
  for (auto _ : state) {
    auto loaded = loadPerfMap(path);
    if (!loaded) {
      state.SkipWithError("load failed");
      return;
    }
    bytes = loaded->tables.symbols.memoryBytes();
    benchmark::DoNotOptimize(loaded->tables.symbols.size());
  }
  state.counters["bytes_per_symbol"] = double(bytes) / 1e6;
}
// Reported as mean and median over repetitions: on a VM that hands freed memory
// back to its host, an occasional load pays for faulting fresh memory in.
BENCHMARK(BM_LoadMap1M)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(4)
    ->Repetitions(15)
    ->ReportAggregatesOnly(true);

// After 1M synced lines, 1k more are appended: the read must cost what was added.
static void BM_IncrementalRead1kAfter1M(benchmark::State &state) {
  const std::string path = mapPath() + ".inc";
  writeMap(path, 1000000);
  SymbolTable table;
  PerfMapReader reader(path);
  TableSink sink(table);
  (void)reader.read(sink);
  table.takeChanges();
  uint64_t next = 1000000;
  for (auto _ : state) {
    state.PauseTiming();
    writeMap(path, 1000, next, /*append=*/true);
    next += 1000;
    state.ResumeTiming();
    auto stats = reader.read(sink);
    SymbolChanges changes = table.takeChanges();
    benchmark::DoNotOptimize(changes.added.size());
    if (!stats || changes.added.size() != 1000)
      state.SkipWithError("unexpected incremental result");
  }
  ::unlink(path.c_str());
}
BENCHMARK(BM_IncrementalRead1kAfter1M)->Unit(benchmark::kMicrosecond)->Iterations(50);

BENCHMARK_MAIN();
