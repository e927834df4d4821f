// The C API of jitsym-writer.h over one perf map and one jitdump producer per
// process.
#include "jitsym-writer.h"

#include <cerrno>
#include <vector>

#include "jitsym/writer/JitdumpProducer.h"
#include "jitsym/writer/PerfMapProducer.h"

using jitsym::DebugLineFields;
using jitsym::writer::JitdumpProducer;
using jitsym::writer::PerfMapProducer;

namespace {

// Created on first use and never destroyed: JIT threads may still write while
// the process exits, after static destructors would have run.
PerfMapProducer &perfMap() {
  static auto *producer = new PerfMapProducer();
  return *producer;
}

JitdumpProducer &jitdump() {
  static auto *producer = new JitdumpProducer();
  return *producer;
}

int badArgument() {
  errno = EINVAL;
  return JITSYM_ERR_ARG;
}

} // namespace

extern "C" {

int jitsym_perf_map_init(void) { return perfMap().init(); }

int jitsym_perf_map_write(const void *code_addr, unsigned int code_size, const char *entry_name) {
  if (!entry_name)
    return badArgument();
  return perfMap().write(reinterpret_cast<uint64_t>(code_addr), code_size, entry_name);
}

void jitsym_perf_map_fini(void) { perfMap().fini(); }

int jitsym_jitdump_init(const char *directory) {
  return jitdump().open(directory ? directory : "");
}

int jitsym_jitdump_write(const void *code_addr, unsigned int code_size, const char *name,
                         const jitsym_line *lines, unsigned int line_count) {
  const auto address = reinterpret_cast<uint64_t>(code_addr);
  if (!code_addr || code_size == 0 || !name || (line_count > 0 && !lines))
    return badArgument();
  std::vector<DebugLineFields> fields;
  fields.reserve(line_count);
  const char *file = nullptr;
  for (unsigned int i = 0; i < line_count; ++i) {
    const jitsym_line &entry = lines[i];
    file = entry.file ? entry.file : file;
    const bool ordered = i == 0 || entry.offset >= lines[i - 1].offset;
    if (!file || !ordered || entry.offset >= code_size)
      return badArgument();
    fields.push_back({address + entry.offset, entry.line, 0, file});
  }
  return jitdump().load(address, code_size, name, fields);
}

int jitsym_jitdump_unload(const void *code_addr) {
  return jitdump().unload(reinterpret_cast<uint64_t>(code_addr));
}

void jitsym_jitdump_fini(void) { jitdump().close(); }

} // extern "C"
