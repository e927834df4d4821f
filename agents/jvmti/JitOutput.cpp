#include "JitOutput.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "jitsym-writer.h"

namespace jitsym::jvmti {

std::unique_ptr<JitOutput> JitOutput::open(const AgentOptions &options, std::string &error) {
  std::unique_ptr<JitOutput> output(new JitOutput());
  if (output->dump_.open(options.directory, &error) != JITSYM_OK)
    return nullptr;
  output->dumpPath_ = output->dump_.path();
  if (options.perfMap) {
    output->map_ = std::make_unique<writer::PerfMapProducer>();
    if (output->map_->init(&error) != JITSYM_OK)
      return nullptr;
    output->mapPath_ = writer::PerfMapProducer::pathForThisProcess();
  }
  return output;
}

void JitOutput::reportLocked(int result, const std::string &path, bool &reported) {
  if (result != JITSYM_ERR_WRITE || reported)
    return;
  std::fprintf(stderr, "jitsym-jvmti: cannot write %s: %s; no more records go to it\n",
               path.c_str(), std::strerror(errno));
  reported = true;
}

void JitOutput::holdWrites() {
  dump_.holdWrites();
  if (map_)
    map_->holdWrites();
}

void JitOutput::releaseWrites() {
  dump_.releaseWrites();
  if (map_)
    map_->releaseWrites();
}

void JitOutput::load(const void *owner, uint64_t address, uint64_t size, std::string_view name,
                     const std::vector<DebugLineFields> &lines, uint64_t entry) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (closed_)
    return;
  if (!owner && dump_.holds(address, size, nullptr))
    return; // a stub replayed by GenerateEvents that is in the dump already
  reportLocked(dump_.load(address, size, name, lines, owner, entry), dumpPath_, dumpFailed_);
  if (map_)
    reportLocked(map_->write(address, size, name), mapPath_, mapFailed_);
}

void JitOutput::unload(const void *owner, uint64_t address) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!closed_) // not when newer code took the range: its CODE_LOAD stands
    reportLocked(dump_.unload(address, owner), dumpPath_, dumpFailed_);
}

void JitOutput::close() {
  std::lock_guard<std::mutex> lock(mutex_);
  closed_ = true;
  dump_.close();
  if (map_)
    map_->fini();
}

} // namespace jitsym::jvmti
