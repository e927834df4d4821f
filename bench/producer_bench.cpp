// What announcing code costs a JIT: libjitsym-writer's perf map line and
// jitdump record (64 bytes of code, with and without a line table), and each
// Intel JIT API event through the real collector library, loaded with dlopen
// as an engine's stub loads it (build/lib/libjitsym-jitprofiling.so, or
// $JITSYM_COLLECTOR). Records go to $JITSYM_BENCH_DIR (else /tmp).
#include <benchmark/benchmark.h>

#include <climits>
#include <cstdlib>
#include <dlfcn.h>
#include <string>
#include <unistd.h>
#include <vector>

#include "jitsym-writer.h"
#include "jitsym/jitprofiling.h"

namespace {

char code[1 << 16]; // the "JIT code": records copy 64 bytes of it
const char *codeAt(size_t i) { return code + (i * 64) % (sizeof code - 64); }

std::string benchDirectory() {
  static const std::string directory = [] {
    const char *base = std::getenv("JITSYM_BENCH_DIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/jitsym-producer-XXXXXX";
    return ::mkdtemp(pattern.data()) ? pattern : std::string("/tmp");
  }();
  return directory;
}

void BM_WriterPerfMapLine(benchmark::State &state) {
  size_t i = 0;
  for (auto _ : state)
    benchmark::DoNotOptimize(jitsym_perf_map_write(codeAt(i++), 64, "py::function:/app/module.py"));
  jitsym_perf_map_fini();
  ::unlink(("/tmp/perf-" + std::to_string(::getpid()) + ".map").c_str());
}
BENCHMARK(BM_WriterPerfMapLine);

void BM_WriterJitdumpRecord(benchmark::State &state) {
  jitsym_jitdump_init(benchDirectory().c_str());
  std::vector<jitsym_line> lines;
  for (unsigned int k = 0; k < state.range(0); ++k)
    lines.push_back({k * 8, 10 + k, k == 0 ? "/app/src/module.js" : nullptr});
  size_t i = 0;
  for (auto _ : state)
    benchmark::DoNotOptimize(jitsym_jitdump_write(codeAt(i++), 64, "LazyCompile:~handle module.js:10",
                                                  lines.data(), static_cast<unsigned>(lines.size())));
  jitsym_jitdump_fini();
  state.SetLabel(std::to_string(state.range(0)) + " line entries");
}
BENCHMARK(BM_WriterJitdumpRecord)->Arg(0)->Arg(8);

// The collector, as the engine's stub sees it.
using NotifyEventFn = unsigned int (*)(unsigned int, void *);
NotifyEventFn collector() {
  static NotifyEventFn notify = [] {
    std::string path;
    if (const char *env = std::getenv("JITSYM_COLLECTOR"))
      path = env;
    else {
      char self[PATH_MAX] = {};
      if (::readlink("/proc/self/exe", self, sizeof self - 1) > 0)
        path = std::string(self).substr(0, std::string(self).rfind("/bin/")) +
               "/lib/libjitsym-jitprofiling.so";
    }
    ::setenv("JITSYM_JITPROFILING", ("quiet,dir=" + benchDirectory()).c_str(), 1);
    void *library = ::dlopen(path.c_str(), RTLD_LAZY);
    auto initialize = library ? reinterpret_cast<unsigned int (*)()>(::dlsym(library, "Initialize"))
                              : nullptr;
    if (!initialize || initialize() != iJIT_SAMPLING_ON)
      return NotifyEventFn{};
    return reinterpret_cast<NotifyEventFn>(::dlsym(library, "NotifyEvent"));
  }();
  return notify;
}

unsigned int nextId = 1000;
LineNumberInfo table[8] = {{8, 10}, {16, 11}, {24, 12}, {32, 13}, {40, 14}, {48, 15}, {56, 16}, {64, 17}};
char sourceFile[] = "/app/src/engine.mini", methodName[] = "Engine::compiled_method";

iJIT_Method_Load methodLoad(size_t i, bool lines) {
  iJIT_Method_Load load{};
  load.method_id = nextId++;
  load.method_name = methodName;
  load.method_load_address = const_cast<char *>(codeAt(i));
  load.method_size = 64;
  if (lines) {
    load.line_number_size = 8;
    load.line_number_table = table;
    load.source_file_name = sourceFile;
  }
  return load;
}

// range(0): 0 LOAD_FINISHED, 1 LOAD_FINISHED with 8 lines, 2 _V2 with a module,
// 3 INLINE_LOAD_FINISHED (into a method with 8 lines, which is written again),
// 4 UPDATE (the method moves), 5 UNLOAD_START.
void BM_CollectorEvent(benchmark::State &state) {
  NotifyEventFn notify = collector();
  if (!notify) {
    state.SkipWithError("the collector did not load (set JITSYM_COLLECTOR)");
    return;
  }
  static const char *const labels[] = {"METHOD_LOAD_FINISHED",     "METHOD_LOAD_FINISHED, 8 lines",
                                       "METHOD_LOAD_FINISHED_V2",  "METHOD_INLINE_LOAD_FINISHED",
                                       "METHOD_UPDATE",            "METHOD_UNLOAD_START"};
  const int kind = static_cast<int>(state.range(0));
  size_t i = 0;
  for (auto _ : state) {
    iJIT_Method_Load load = methodLoad(i++, kind != 0);
    if (kind >= 3) { // the method the event is about is loaded first, not timed
      state.PauseTiming();
      notify(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load);
      state.ResumeTiming();
    }
    switch (kind) {
    case 0: case 1:
      notify(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load);
      break;
    case 2: {
      char module[] = "regex";
      iJIT_Method_Load_V2 v2{load.method_id, methodName, load.method_load_address, 64, 8, table,
                             nullptr, sourceFile, module};
      notify(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V2, &v2);
      break;
    }
    case 3: {
      LineNumberInfo inlineLines[] = {{8, 3}, {16, 4}};
      iJIT_Method_Inline_Load inlined{nextId++, load.method_id, methodName,
                                      static_cast<char *>(load.method_load_address) + 16, 16, 2,
                                      inlineLines, nullptr, sourceFile};
      notify(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, &inlined);
      break;
    }
    case 4:
      load.method_load_address = const_cast<char *>(codeAt(i + 7));
      notify(iJVM_EVENT_TYPE_METHOD_UPDATE, &load);
      break;
    case 5:
      notify(iJVM_EVENT_TYPE_METHOD_UNLOAD_START, &load.method_id);
      break;
    }
  }
  state.SetLabel(labels[kind]);
}
BENCHMARK(BM_CollectorEvent)->DenseRange(0, 5);

} // namespace
