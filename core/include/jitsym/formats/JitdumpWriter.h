// Encoding jitdump records (the counterpart of JitdumpParser.h) in this
// machine's byte order, as the specification asks of writers. Pure functions
// that append to a string; no LLVM, so in-process agents (the JVMTI agent) can
// link them without pulling LLVM into the runtime they observe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "jitsym/formats/JitdumpFormat.h" // the layouts, ids and constants of the format

namespace jitsym {

struct JitdumpFileFields {
  uint32_t elfMachine = 0;
  uint32_t pid = 0;
  uint64_t timestamp = 0; // CLOCK_MONOTONIC nanoseconds
};

struct CodeLoadFields {
  uint32_t pid = 0, tid = 0;
  uint64_t address = 0;
  uint64_t index = 0;     // unique per CODE_LOAD
  std::string_view name;  // must not contain NUL
  std::string_view code;  // the code bytes, code_size of them
};

struct DebugLineFields {
  uint64_t address = 0;   // absolute address of the first instruction of the line
  uint32_t line = 0;
  uint32_t discriminator = 0;
  std::string_view file;
};

struct CodeUnloadFields {
  uint32_t pid = 0, tid = 0;
  uint64_t address = 0, size = 0, index = 0;
};

void appendJitdumpHeader(std::string &out, const JitdumpFileFields &fields);
void appendCodeLoad(std::string &out, uint64_t timestamp, const CodeLoadFields &load);
// All of CODE_LOAD but the code bytes, which the caller writes right after it
// (total_size counts them): an agent can write them from the code itself.
void appendCodeLoadHeader(std::string &out, uint64_t timestamp, const CodeLoadFields &load);
// Line entries are written the way V8 writes them and perf inject reads them:
// at the line's address + kPerfDebugAddressBias. A run of entries
// with the same file writes its name once ("\xff" means "as before").
void appendDebugInfo(std::string &out, uint64_t timestamp, uint64_t codeAddress,
                     const std::vector<DebugLineFields> &lines);
// jitsym's JitsymCodeUnload record (see JitdumpParser.h).
void appendCodeUnload(std::string &out, uint64_t timestamp, const CodeUnloadFields &unload);
// jitsym's JitsymCodeEntry record, for the CODE_LOAD written next.
void appendCodeEntry(std::string &out, uint64_t timestamp, uint32_t pid, uint32_t tid,
                     uint64_t codeAddress, uint64_t entryAddress);
void appendCodeClose(std::string &out, uint64_t timestamp);

// One perf map line, "START SIZE NAME\n" in hex without 0x, as perf expects.
std::string perfMapLine(uint64_t address, uint64_t size, std::string_view name);

} // namespace jitsym
