// libFuzzer target: the incremental readers (PerfMapReader, JitdumpReader) over
// a real file that grows while they read it, as a runtime's perf map or
// jitdump does, and the jitdump's bytes still in the runtime's stdio buffer.
//
// Input: a byte choosing the format, 4 bytes seeding where the writes are cut,
// then the file's content. The content is appended in up to 8 pieces with a
// read after each (for a jitdump, with some of what follows the file's end
// given as unflushed bytes, never less than before; or, as glibc between its
// write(2) and the reset of its pointers, the file's last bytes; or bytes from
// elsewhere in the content), then read once more.
// Checked invariants:
//  - what the reads hand over, taken together, is what one read of the whole
//    file hands over: the same entries, diagnostics and line numbers (perf
//    map), the same header, records at the same offsets, diagnostics and error
//    (jitdump); nothing is handed over twice;
//  - provisional records (from the unflushed bytes) never reach onRecord and
//    no diagnostic comes of them; each is confirmed by the file or withdrawn,
//    once, and none is left at the end;
//  - the statistics agree: bytes read add up to the complete lines or records,
//    pending bytes are the rest, and an appended file is never taken for a
//    rewritten one.
#include "jitsym/formats/JitdumpParser.h"
#include "jitsym/files/JitdumpReader.h"
#include "jitsym/formats/PerfMapParser.h"
#include "jitsym/files/PerfMapReader.h"

#include "FuzzCheck.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <set>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

using namespace jitsym;

namespace {

// Made once, removed at exit (never destroyed: the exit handler uses it).
const std::string &scratchDir() {
  static const std::string *dir = [] {
    char name[] = "/tmp/jitsym-fuzz-readers-XXXXXX";
    if (!::mkdtemp(name))
      fuzz::fail("cannot make a scratch directory");
    std::atexit([] {
      for (const char *file : {"/perf-1.map", "/jit-1.dump"})
        ::unlink((scratchDir() + file).c_str());
      ::rmdir(scratchDir().c_str());
    });
    return new std::string(name);
  }();
  return *dir;
}

class Cuts {
public:
  explicit Cuts(uint32_t seed) : state_(seed | 1) {}
  uint32_t next(uint32_t bound) { // xorshift32
    state_ ^= state_ << 13;
    state_ ^= state_ >> 17;
    state_ ^= state_ << 5;
    return bound ? state_ % bound : 0;
  }

private:
  uint32_t state_;
};

// The file, written from scratch and appended to.
class GrowingFile {
public:
  explicit GrowingFile(const std::string &path) : path_(path) {
    ::unlink(path.c_str());
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd_ < 0)
      fuzz::fail("cannot create the scratch file");
  }
  ~GrowingFile() { ::close(fd_); }
  void append(std::string_view bytes) {
    if (!bytes.empty() && ::write(fd_, bytes.data(), bytes.size()) != ssize_t(bytes.size()))
      fuzz::fail("cannot append to the scratch file");
  }

private:
  std::string path_;
  int fd_;
};

// ---- perf maps

struct MapLog : PerfMapSink {
  std::vector<std::string> events;
  void onRewrite() override { events.push_back("rewrite"); }
  void onEntry(const PerfMapEntry &e) override {
    events.push_back("entry " + std::to_string(e.address) + " " + std::to_string(e.size) + " " +
                     std::string(e.name));
  }
  void onDiagnostic(const Diagnostic &d) override {
    events.push_back("line " + std::to_string(d.line) + ": " + d.message);
  }
};

void checkPerfMap(std::string_view content, Cuts &cuts) {
  const std::string path = scratchDir() + "/perf-1.map";
  GrowingFile file(path);
  PerfMapReader reader(path);
  MapLog log;
  uint64_t bytesRead = 0, written = 0, entries = 0, malformed = 0;
  ReadStats last;
  const uint32_t steps = cuts.next(8) + 1;
  for (uint32_t step = 0; step <= steps; ++step) {
    const uint64_t upTo = step == steps ? content.size()
                                        : written + cuts.next(content.size() - written + 1);
    file.append(content.substr(written, upTo - written));
    written = upTo;
    llvm::Expected<ReadStats> stats = reader.read(log);
    CHECK(stats);
    CHECK(!stats->rewritten);
    bytesRead += stats->bytesRead;
    entries += stats->entries;
    malformed += stats->malformed;
    CHECK(bytesRead + stats->pendingBytes == written);
    last = *stats;
  }

  MapLog whole;
  PerfMapChunkResult result = parsePerfMapChunk(
      content, 1, [&](const PerfMapEntry &e) { whole.onEntry(e); },
      [&](uint64_t line, std::string message) { whole.onDiagnostic({path, line, message}); });
  CHECK(log.events == whole.events);
  CHECK(bytesRead == result.bytesConsumed);
  CHECK(last.pendingBytes == content.size() - result.bytesConsumed);
  CHECK(reader.linesRead() == result.linesConsumed);
  CHECK(entries + malformed == whole.events.size());
}

// ---- jitdumps

std::string describe(const JitdumpRecord &r) {
  std::string out = std::to_string(r.id) + "/" + std::to_string(r.size) + "/" +
                    std::to_string(r.timestamp) + ":";
  auto add = [&](uint64_t v) { out += " " + std::to_string(v); };
  if (const auto *load = std::get_if<JitCodeLoad>(&r.body)) {
    for (uint64_t v : {uint64_t(load->pid), uint64_t(load->tid), load->vma, load->codeAddress,
                       load->codeSize, load->codeIndex, load->codeOffset})
      add(v);
    out += " " + std::string(load->name);
  } else if (const auto *move = std::get_if<JitCodeMove>(&r.body)) {
    for (uint64_t v : {uint64_t(move->pid), uint64_t(move->tid), move->vma, move->oldAddress,
                       move->newAddress, move->codeSize, move->codeIndex})
      add(v);
  } else if (const auto *debug = std::get_if<JitDebugInfo>(&r.body)) {
    add(debug->codeAddress);
    for (const JitLineEntry &e : debug->entries) {
      for (uint64_t v : {e.address, uint64_t(e.line), uint64_t(e.discriminator)})
        add(v);
      out += " " + std::string(e.file);
    }
  } else if (const auto *unwind = std::get_if<JitUnwindingInfo>(&r.body)) {
    for (uint64_t v : {unwind->unwindDataSize, unwind->ehFrameHeaderSize, unwind->mappedSize})
      add(v);
    out += " " + std::string(unwind->data);
  } else if (const auto *unload = std::get_if<JitCodeUnload>(&r.body)) {
    for (uint64_t v : {uint64_t(unload->pid), uint64_t(unload->tid), unload->codeAddress,
                       unload->codeSize, unload->codeIndex})
      add(v);
  } else if (const auto *entry = std::get_if<JitCodeEntry>(&r.body)) {
    for (uint64_t v : {uint64_t(entry->pid), uint64_t(entry->tid), entry->codeAddress,
                       entry->entryAddress})
      add(v);
  } else if (std::holds_alternative<JitCodeClose>(r.body)) {
    out += " close";
  }
  return out;
}

struct DumpLog : JitdumpSink {
  std::vector<std::string> events;
  uint64_t nextOffset = 0; // records come in file order, each once
  void onRewrite() override { events.push_back("rewrite"); }
  void onHeader(const JitdumpHeader &h) override {
    events.push_back("header " + std::to_string(h.version) + " " + std::to_string(h.headerSize) +
                     " " + std::to_string(h.pid) + (h.byteSwapped ? " swapped" : ""));
    nextOffset = h.headerSize;
  }
  void onRecord(const JitdumpRecord &r, uint64_t offset) override {
    CHECK(!inProvisional);
    CHECK(offset >= nextOffset);
    // The next record starts after this one's start: where its size says, or
    // earlier where the size disagrees with its content (jitdumpNextRecord).
    nextOffset = offset + 1;
    events.push_back("@" + std::to_string(offset) + " " + describe(r));
  }
  void onDiagnostic(const Diagnostic &d) override {
    CHECK(!inProvisional);
    events.push_back("diagnostic " + d.message);
  }
  void beginProvisional() override { inProvisional = true; }
  void endProvisional() override { inProvisional = false; }
  void onProvisionalRecord(const JitdumpRecord &r, uint64_t offset, bool seenBefore) override {
    CHECK(inProvisional);
    CHECK(offset >= nextOffset);
    CHECK(seenBefore == (provisional.count(offset) != 0));
    provisional.insert(offset);
  }
  void onConfirmedRecord(const JitdumpRecord &r, uint64_t offset) override {
    CHECK(provisional.erase(offset) == 1);
    onRecord(r, offset);
  }
  void onWithdrawnRecord(uint64_t offset) override {
    CHECK(!inProvisional || offset >= nextOffset);
    CHECK(provisional.erase(offset) == 1);
  }
  bool inProvisional = false;
  std::set<uint64_t> provisional; // given provisionally, not settled yet
};

void checkJitdump(std::string_view content, Cuts &cuts) {
  const std::string path = scratchDir() + "/jit-1.dump";
  DumpLog whole;
  std::string wholeError;
  JitdumpReadStats wholeStats;
  {
    GrowingFile file(path);
    file.append(content);
    JitdumpReader reader(path);
    llvm::Expected<JitdumpReadStats> stats = reader.read(whole);
    if (stats)
      wholeStats = *stats;
    else
      wholeError = llvm::toString(stats.takeError());
  }

  GrowingFile file(path);
  JitdumpReader reader(path);
  DumpLog log;
  std::string error;
  uint64_t written = 0, buffered = 0; // the file's size, and that with the buffer
  const uint32_t steps = cuts.next(8) + 1;
  for (uint32_t step = 0; step <= steps && error.empty(); ++step) {
    const bool final = step == steps;
    buffered = final ? content.size() : buffered + cuts.next(content.size() - buffered + 1);
    const uint64_t upTo = final ? content.size() : written + cuts.next(buffered - written + 1);
    file.append(content.substr(written, upTo - written));
    written = upTo;
    std::string_view unflushed = content.substr(written, buffered - written);
    if (!final && !unflushed.empty()) {
      const uint32_t kind = cuts.next(4);
      if (kind == 0 && unflushed.size() <= written) // already written
        unflushed = content.substr(written - unflushed.size(), unflushed.size());
      else if (kind == 1) // another FILE's, stale: any bytes of the content
        unflushed = content.substr(cuts.next(content.size()), unflushed.size());
    }
    llvm::Expected<JitdumpReadStats> stats = reader.read(log, unflushed);
    if (!stats) {
      error = llvm::toString(stats.takeError());
      break;
    }
    CHECK(!stats->rewritten);
    if (final) {
      CHECK(stats->corrupt == wholeStats.corrupt || wholeStats.corrupt);
      CHECK(stats->pendingBytes == wholeStats.pendingBytes);
    }
  }
  CHECK(error == wholeError);
  if (error.empty()) {
    CHECK(log.events == whole.events);
    CHECK(log.provisional.empty());
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 5)
    return 0;
  uint32_t seed = 0;
  std::memcpy(&seed, data + 1, 4);
  Cuts cuts(seed);
  const std::string_view content(reinterpret_cast<const char *>(data) + 5, size - 5);
  if (data[0] & 1)
    checkJitdump(content, cuts);
  else
    checkPerfMap(content, cuts);
  return 0;
}
