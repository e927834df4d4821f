// The JVMTI agent's cost per code event inside the JVM: JitOutput::load of a
// stub-sized record (HotSpot's stubs average about 1 KiB of code), written at
// once (after VM init) and held (VM start and the replay at VM init, where
// the JVM's startup waits for the agent), and a replayed stub that is in the
// dump already.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>
#include <unistd.h>
#include <vector>

#include "JitOutput.h"

using namespace jitsym::jvmti;

namespace {

// Code for `slots` stubs of 1 KiB each, and an output in a fresh directory.
struct StubBench {
  std::vector<char> code;
  std::string directory;
  std::unique_ptr<JitOutput> output;

  explicit StubBench(size_t slots) : code(slots * 1024, '\x90') {
    const char *base = std::getenv("JITSYM_BENCH_DIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/jitsym-agent-XXXXXX";
    directory = ::mkdtemp(pattern.data()) ? pattern : "/tmp";
    AgentOptions options;
    options.directory = directory;
    std::string error;
    output = JitOutput::open(options, error);
  }
  ~StubBench() {
    if (output) {
      ::unlink(output->dumpPath().c_str());
      output.reset();
    }
    ::rmdir(directory.c_str());
  }
  uint64_t address(size_t slot) const {
    return reinterpret_cast<uint64_t>(code.data()) + slot % (code.size() / 1024) * 1024;
  }
};

void stubLoads(benchmark::State &state, bool held) {
  StubBench bench(4096);
  if (!bench.output) {
    state.SkipWithError("cannot create the agent's dump");
    return;
  }
  if (held)
    bench.output->holdWrites();
  size_t slot = 0;
  static const int kOwner = 0; // a method's code, so that every load is written
  for (auto _ : state) {
    bench.output->load(&kOwner, bench.address(slot), 1024, "StubRoutines::arrayof_jint_fill", {});
    ++slot;
  }
  bench.output->releaseWrites();
  state.SetItemsProcessed(state.iterations());
}

void BM_AgentLoadWritten(benchmark::State &state) { stubLoads(state, false); }
BENCHMARK(BM_AgentLoadWritten)->Unit(benchmark::kMicrosecond);

void BM_AgentLoadHeld(benchmark::State &state) { stubLoads(state, true); }
BENCHMARK(BM_AgentLoadHeld)->Unit(benchmark::kMicrosecond);

void BM_AgentReplayedStub(benchmark::State &state) {
  StubBench bench(1);
  if (!bench.output) {
    state.SkipWithError("cannot create the agent's dump");
    return;
  }
  bench.output->load(nullptr, bench.address(0), 1024, "flush_icache_stub", {});
  for (auto _ : state)
    bench.output->load(nullptr, bench.address(0), 1024, "flush_icache_stub", {});
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_AgentReplayedStub)->Unit(benchmark::kMicrosecond);

} // namespace
