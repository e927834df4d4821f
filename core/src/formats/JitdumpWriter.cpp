// Jitdump record encoding: the format's layouts (JitdumpFormat.h) filled and
// appended in native byte order, each record's total_size computed up front.
#include "jitsym/formats/JitdumpWriter.h"

#include <cinttypes>
#include <cstdio>

namespace jitsym {
namespace {

// One of JitdumpFormat.h's layouts, as it is in memory: the writer's order.
template <class Layout> void put(std::string &out, const Layout &layout) {
  out.append(reinterpret_cast<const char *>(&layout), sizeof layout);
}

void putString(std::string &out, std::string_view text) {
  out.append(text.data(), text.size());
  out.push_back('\0');
}

jr_prefix prefix(JitdumpRecordId id, uint64_t timestamp, uint64_t totalSize) {
  return {static_cast<uint32_t>(id), static_cast<uint32_t>(totalSize), timestamp};
}

// The file name written for entry `i`: "\xff" for the previous entry's.
std::string_view fileNameToWrite(const std::vector<DebugLineFields> &lines, size_t i) {
  return i > 0 && lines[i].file == lines[i - 1].file ? std::string_view("\xff")
                                                     : lines[i].file;
}

} // namespace

void appendJitdumpHeader(std::string &out, const JitdumpFileFields &fields) {
  jitheader header{};
  header.magic = kJitdumpMagic;
  header.version = kJitdumpVersion;
  header.total_size = sizeof header;
  header.elf_mach = fields.elfMachine;
  header.pid = fields.pid;
  header.timestamp = fields.timestamp;
  header.flags = 0; // timestamps are CLOCK_MONOTONIC, not TSC
  put(out, header);
}

void appendCodeLoadHeader(std::string &out, uint64_t timestamp, const CodeLoadFields &load) {
  jr_code_load record{};
  record.p = prefix(JitdumpRecordId::CodeLoad, timestamp,
                    sizeof record + load.name.size() + 1 + load.code.size());
  record.pid = load.pid;
  record.tid = load.tid;
  record.vma = load.address;
  record.code_addr = load.address;
  record.code_size = load.code.size();
  record.code_index = load.index;
  put(out, record);
  putString(out, load.name);
}

void appendCodeLoad(std::string &out, uint64_t timestamp, const CodeLoadFields &load) {
  appendCodeLoadHeader(out, timestamp, load);
  out.append(load.code.data(), load.code.size());
}

void appendDebugInfo(std::string &out, uint64_t timestamp, uint64_t codeAddress,
                     const std::vector<DebugLineFields> &lines) {
  uint64_t size = sizeof(jr_code_debug_info);
  for (size_t i = 0; i < lines.size(); ++i)
    size += sizeof(debug_entry) + fileNameToWrite(lines, i).size() + 1;
  jr_code_debug_info record{};
  record.p = prefix(JitdumpRecordId::CodeDebugInfo, timestamp, size);
  record.code_addr = codeAddress;
  record.nr_entry = lines.size();
  put(out, record);
  for (size_t i = 0; i < lines.size(); ++i) {
    debug_entry entry{};
    entry.addr = lines[i].address + kPerfDebugAddressBias;
    entry.lineno = lines[i].line;
    entry.discrim = lines[i].discriminator;
    put(out, entry);
    putString(out, fileNameToWrite(lines, i));
  }
}

void appendCodeUnload(std::string &out, uint64_t timestamp, const CodeUnloadFields &unload) {
  jitsym_code_unload record{};
  record.p = prefix(JitdumpRecordId::JitsymCodeUnload, timestamp, sizeof record);
  record.pid = unload.pid;
  record.tid = unload.tid;
  record.code_addr = unload.address;
  record.code_size = unload.size;
  record.code_index = unload.index;
  put(out, record);
}

void appendCodeEntry(std::string &out, uint64_t timestamp, uint32_t pid, uint32_t tid,
                     uint64_t codeAddress, uint64_t entryAddress) {
  jitsym_code_entry record{};
  record.p = prefix(JitdumpRecordId::JitsymCodeEntry, timestamp, sizeof record);
  record.pid = pid;
  record.tid = tid;
  record.code_addr = codeAddress;
  record.entry_addr = entryAddress;
  put(out, record);
}

void appendCodeClose(std::string &out, uint64_t timestamp) {
  jr_code_close record{};
  record.p = prefix(JitdumpRecordId::CodeClose, timestamp, sizeof record);
  put(out, record);
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
