// Entry points of libjitsym-jitprofiling.so, the collector an engine's Intel
// JIT API stub loads when INTEL_JIT_PROFILER64 (or ..32) names it:
// Initialize() once, then NotifyEvent() for each iJIT_NotifyEvent call, from
// any thread. Events become jitdump records (and perf map lines with option
// perfmap) through libjitsym-writer, which jit-sync and perf read.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <memory>
#include <mutex>

#include "CollectorOptions.h"
#include "EventTranslator.h"
#include "jitsym-writer.h"
#include "jitsym/jitprofiling.h"
#include "jitsym/writer/JitdumpProducer.h"
#include "jitsym/writer/PerfMapProducer.h"

namespace jitsym::jitprofiling {
namespace {

// Messages past this many are counted, not printed: an engine that sends bad
// events in a loop must not flood its own standard error.
constexpr int kPrintedMessages = 20;

class Collector final : public CodeSink {
public:
  unsigned int initialize();
  unsigned int initializeLocked();
  unsigned int notify(unsigned int event, const void *data);

  void load(uint64_t address, uint64_t size, const std::string &name,
            const std::vector<DebugLineFields> &lines) override {
    report(dump_.load(address, size, name, lines), File::Dump);
    if (map_)
      report(map_->write(address, size, name), File::Map);
  }
  void unload(uint64_t address) override { report(dump_.unload(address), File::Dump); }
  void shutdown() override {
    dump_.close();
    if (map_)
      map_->fini();
    if (rejected_ > 0)
      say("%d events were rejected or ignored\n", rejected_);
  }

private:
  using PerfMapProducer = writer::PerfMapProducer;
  template <typename... Args> void say(const char *format, Args... args) {
    std::fprintf(stderr, "jitsym-jitprofiling: ");
    std::fprintf(stderr, format, args...);
  }
  enum class File { Dump, Map };
  // Says once per file that it could not be written any more; the path is
  // looked up only then.
  void report(int result, File file) {
    bool &reported = file == File::Map ? mapFailed_ : dumpFailed_;
    if (result != JITSYM_ERR_WRITE || reported)
      return;
    const int error = errno;
    reported = true;
    const std::string path =
        file == File::Map ? PerfMapProducer::pathForThisProcess() : dump_.path();
    say("cannot write %s: %s; no more records go to it\n", path.c_str(), std::strerror(error));
  }

  std::mutex mutex_; // events of many threads are translated one at a time
  enum class State { New, Collecting, Off } state_ = State::New;
  writer::JitdumpProducer dump_;
  std::unique_ptr<PerfMapProducer> map_;
  EventTranslator translator_{*this};
  int messages_ = 0, rejected_ = 0;
  bool dumpFailed_ = false, mapFailed_ = false;
};

unsigned int Collector::initialize() {
  std::lock_guard<std::mutex> lock(mutex_);
  return initializeLocked();
}

unsigned int Collector::initializeLocked() {
  if (state_ != State::New) // a second engine with its own stub in this process
    return state_ == State::Collecting ? iJIT_SAMPLING_ON : iJIT_NOTHING_RUNNING;
  state_ = State::Off;
  const char *text = std::getenv("JITSYM_JITPROFILING");
  std::string error;
  const auto options = parseCollectorOptions(text ? text : "", error);
  if (!options || options->help) {
    if (!options)
      say("%s; collecting nothing\n", error.c_str());
    std::fputs(kCollectorOptionsHelp, stderr);
    return iJIT_NOTHING_RUNNING;
  }
  if (dump_.open(options->directory, &error) != JITSYM_OK) {
    say("%s; collecting nothing\n", error.c_str());
    return iJIT_NOTHING_RUNNING;
  }
  if (options->perfMap) {
    map_ = std::make_unique<PerfMapProducer>();
    if (map_->init(&error) != JITSYM_OK) {
      say("%s; writing the jitdump only\n", error.c_str());
      map_.reset();
    }
  }
  if (!options->quiet)
    say("writing %s%s%s\n", dump_.path().c_str(), map_ ? " and " : "",
        map_ ? PerfMapProducer::pathForThisProcess().c_str() : "");
  state_ = State::Collecting;
  return iJIT_SAMPLING_ON;
}

unsigned int Collector::notify(unsigned int event, const void *data) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (state_ == State::New) // a stub that did not call Initialize first
    initializeLocked();
  if (state_ != State::Collecting)
    return 0;
  const EventResult result = translator_.handle(event, data);
  if (result.value == 0)
    ++rejected_;
  if (!result.message.empty() && messages_++ < kPrintedMessages)
    say("%s\n", result.message.c_str());
  else if (!result.message.empty() && messages_ == kPrintedMessages + 1)
    say("more messages follow; they are not printed\n");
  return result.value;
}

// Never destroyed: engine threads may send events while the process exits.
Collector &collector() {
  static auto *instance = new Collector();
  return *instance;
}

} // namespace
} // namespace jitsym::jitprofiling

extern "C" __attribute__((visibility("default"))) unsigned int Initialize(void) {
  return jitsym::jitprofiling::collector().initialize();
}

extern "C" __attribute__((visibility("default"))) unsigned int NotifyEvent(unsigned int event,
                                                                          void *data) {
  return jitsym::jitprofiling::collector().notify(event, data);
}
