// What a window's debug object costs to build (DebugObject.h): a window of N
// JIT functions with 8 source lines each, as a JVM's 1 MiB window holds after
// warm-up. Rebuilt whole after every delta that adds functions, so its cost
// is what such a stop pays before LLDB reads it (issue 22).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "jitsym/objects/DebugObject.h"
#include "jitsym/symbols/LineTables.h"
#include "jitsym/symbols/UnwindTables.h"

using namespace jitsym;

namespace {

void BM_DebugObjectWindow(benchmark::State &state) {
  const uint64_t functions = static_cast<uint64_t>(state.range(0));
  const uint64_t base = 0x7f0000000000, stride = (1 << 20) / functions;
  JitTables tables;
  LineTables &lines = tables.lines;
  std::vector<std::string> names;
  for (uint64_t i = 0; i < functions; ++i)
    names.push_back("long com.example.Generated" + std::to_string(i) + ".work(int, long)");
  std::vector<DebugFunction> window;
  for (uint64_t i = 0; i < functions; ++i) {
    const uint64_t start = base + i * stride;
    std::vector<JitLineEntry> entries;
    for (uint32_t l = 0; l < 8; ++l)
      entries.push_back({start + l * (stride / 8), 10 + l, 0, "Generated.java"});
    lines.set(start, entries);
    window.push_back({start, start + stride, names[i]});
  }
  UuidBytes id{};
  for (auto _ : state) {
    llvm::Expected<std::string> image =
        buildDebugObject(kX86_64, {base, base + (1 << 20)}, id, "jit", window, tables);
    if (!image) {
      state.SkipWithError(llvm::toString(image.takeError()).c_str());
      break;
    }
    benchmark::DoNotOptimize(image->data());
  }
  state.counters["functions"] = static_cast<double>(functions);
  state.counters["us/function"] = benchmark::Counter(
      static_cast<double>(functions), benchmark::Counter::kIsIterationInvariantRate |
                                          benchmark::Counter::kInvert);
}
BENCHMARK(BM_DebugObjectWindow)->Arg(500)->Arg(2000)->Arg(8000)->Unit(benchmark::kMillisecond);

} // namespace
