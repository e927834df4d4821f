// Jitdump record encoding: fields appended in native byte order, each record's
// total_size patched once its body is written.
#include "jitsym/JitdumpWriter.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace jitsym {
namespace {

constexpr uint32_t kVersion = 1;

template <class T> void put(std::string &out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

void putString(std::string &out, std::string_view text) {
  out.append(text.data(), text.size());
  out.push_back('\0');
}

// Writes the record header, then `body`, then patches total_size.
template <class Body>
void record(std::string &out, JitdumpRecordId id, uint64_t timestamp, Body body) {
  const size_t start = out.size();
  put(out, static_cast<uint32_t>(id));
  put<uint32_t>(out, 0);
  put<uint64_t>(out, timestamp);
  body();
  const auto size = static_cast<uint32_t>(out.size() - start);
  std::memcpy(&out[start + 4], &size, sizeof size);
}

} // namespace

void appendJitdumpHeader(std::string &out, const JitdumpFileFields &fields) {
  for (uint32_t v : {kJitdumpMagic, kVersion, uint32_t(kJitdumpHeaderSize), fields.elfMachine, 0u, fields.pid})
    put(out, v);
  put<uint64_t>(out, fields.timestamp);
  put<uint64_t>(out, 0); // flags: timestamps are CLOCK_MONOTONIC, not TSC
}

void appendCodeLoadHeader(std::string &out, uint64_t timestamp, const CodeLoadFields &load) {
  const size_t start = out.size();
  record(out, JitdumpRecordId::CodeLoad, timestamp, [&] {
    put(out, load.pid);
    put(out, load.tid);
    put<uint64_t>(out, load.address); // vma
    put<uint64_t>(out, load.address); // code_addr
    put<uint64_t>(out, load.code.size());
    put<uint64_t>(out, load.index);
    putString(out, load.name);
  });
  const auto size = static_cast<uint32_t>(out.size() - start + load.code.size());
  std::memcpy(&out[start + 4], &size, sizeof size);
}

void appendCodeLoad(std::string &out, uint64_t timestamp, const CodeLoadFields &load) {
  appendCodeLoadHeader(out, timestamp, load);
  out.append(load.code.data(), load.code.size());
}

void appendDebugInfo(std::string &out, uint64_t timestamp, uint64_t codeAddress,
                     const std::vector<DebugLineFields> &lines) {
  record(out, JitdumpRecordId::CodeDebugInfo, timestamp, [&] {
    put<uint64_t>(out, codeAddress);
    put<uint64_t>(out, lines.size());
    std::string_view previousFile;
    for (size_t i = 0; i < lines.size(); ++i) {
      const DebugLineFields &line = lines[i];
      put<uint64_t>(out, line.address + kPerfDebugAddressBias);
      put(out, line.line);
      put(out, line.discriminator);
      if (i > 0 && line.file == previousFile)
        putString(out, "\xff");
      else
        putString(out, line.file);
      previousFile = line.file;
    }
  });
}

void appendCodeUnload(std::string &out, uint64_t timestamp, const CodeUnloadFields &unload) {
  record(out, JitdumpRecordId::JitsymCodeUnload, timestamp, [&] {
    put(out, unload.pid);
    put(out, unload.tid);
    put(out, unload.address);
    put(out, unload.size);
    put(out, unload.index);
  });
}

void appendCodeClose(std::string &out, uint64_t timestamp) {
  record(out, JitdumpRecordId::CodeClose, timestamp, [] {});
}

std::string perfMapLine(uint64_t address, uint64_t size, std::string_view name) {
  char numbers[40];
  const int length = std::snprintf(numbers, sizeof numbers, "%" PRIx64 " %" PRIx64 " ",
                                   address, size);
  std::string line(numbers, static_cast<size_t>(length));
  line.append(name.data(), name.size());
  line.push_back('\n');
  return line;
}

} // namespace jitsym
