// File I/O for jitdump files: chunked reads from the last complete record on,
// records handed to the parser one boundary at a time.
#include "jitsym/files/JitdumpReader.h"

#include <algorithm>

#include "llvm/Support/Endian.h"

namespace jitsym {
namespace {

constexpr size_t kChunkBytes = 4u << 20;
// A provisional record is known again by this many of its first bytes: its
// header (with the timestamp), fields and name.
constexpr size_t kMaxRemembered = 4096;
// The file's unread tail that a provisional read puts in front of the buffered
// bytes (a record cut by the last flush); past this the buffer is not read.
constexpr uint64_t kMaxProvisionalTail = 64u << 20;
// Once reading loses its step, this many bytes without a record after the
// bad place make the rest of the file unreadable.
constexpr uint64_t kMaxBytesWithoutRecord = 16u << 20;
// Whether a record starts somewhere is told by this many of its first bytes
// (jitdumpRecordStartsAt needs a few dozen).
constexpr uint64_t kProbeBytes = 256;

// A window of the file kept in memory: bytes [start, start + bytes.size()).
struct Window {
  uint64_t start = 0;
  std::string bytes;

  std::string_view from(uint64_t offset) const {
    if (offset < start || offset - start >= bytes.size())
      return {};
    return std::string_view(bytes).substr(offset - start);
  }
};

} // namespace

// One read's walk over the file's records, from the reader's offset to the
// file's size at the start of the read. Records are parsed from a window of
// the file; what is handed to the sink points into it until the window moves.
struct JitdumpReader::Walk {
  JitdumpReader &reader;
  JitdumpSink &sink;
  int fd;
  uint64_t fileSize;
  const InterruptCheck &interrupt;
  JitdumpReadStats &stats;
  Window window;
  uint64_t at = reader.offset_;
  bool readFailed = false;
  bool tailInDoubt = false; // the walk waits at a record whose size is in doubt

  const JitdumpHeader &header() const { return *reader.header_; }
  std::string where(uint64_t offset) const {
    return "byte offset " + std::to_string(offset) + ": ";
  }

  // The file's bytes from `offset` on: at least `want` of them where the file
  // has them (moving the window; earlier views of it die).
  std::string_view bytesAt(uint64_t offset, uint64_t want) {
    want = std::min(want, fileSize - offset);
    std::string_view have = window.from(offset);
    if (have.size() >= want)
      return have;
    window.start = offset;
    const uint64_t size = std::min<uint64_t>(fileSize - offset, std::max<uint64_t>(kChunkBytes, want));
    if (!preadExact(fd, offset, static_cast<size_t>(size), window.bytes)) {
      window.bytes.clear();
      readFailed = true; // the file shrank: found rewritten at the next read
    }
    return window.from(offset);
  }

  // Whether a record starts at `offset` (told by its first few dozen bytes).
  RecordStart recordAt(uint64_t offset) {
    return jitdumpRecordStartsAt(bytesAt(offset, kProbeBytes), header());
  }

  void run() {
    if (reader.lostStep_ && !findStep())
      return finish();
    while (at < fileSize && !readFailed) {
      JitdumpRecordParse parse = parseJitdumpRecord(window.from(at), header().byteSwapped);
      if (parse.kind == JitdumpRecordParse::NeedBytes) {
        if (at + parse.needBytes > fileSize)
          break; // still being written
        if (at > reader.offset_ && interruptRequested(interrupt)) {
          stats.interrupted = true;
          break;
        }
        bytesAt(at, parse.needBytes);
        continue;
      }
      if (parse.kind == JitdumpRecordParse::Corrupt) {
        if (!loseStep(at, at + 1, parse.error))
          break;
        continue;
      }
      const uint64_t size = parse.record.size;
      if (at + size > fileSize)
        break; // cut off at the end: waits until it is complete
      // Where the next record starts, when this one's size is in doubt
      // (jitdumpNextRecord), is told by the bytes after it.
      uint64_t next = at + size;
      if (jitdumpSizeInDoubt(parse) && size <= kChunkBytes) {
        const uint64_t want = std::min<uint64_t>(size + kProbeBytes, fileSize - at);
        if (window.from(at).size() < want) {
          bytesAt(at, want);
          continue; // parsed again from the moved window
        }
        const std::optional<uint64_t> end =
            jitdumpNextRecord(window.from(at), parse, header(), reader.writerDone_);
        if (!end && !reader.writerDone_) {
          tailInDoubt = true; // read provisionally meanwhile (readProvisional)
          break;              // the bytes that tell are not written yet
        }
        next = at + end.value_or(size);
      }
      // A record skipped (malformed, or of an id no writer defines) is read
      // past by its size only when a record's header follows it.
      const bool skipped = parse.kind == JitdumpRecordParse::Malformed ||
                           std::holds_alternative<std::monostate>(parse.record.body);
      const bool followed = next + kJitdumpRecordHeaderSize <= fileSize;
      if (skipped && !followed && !reader.writerDone_)
        break; // the bytes that tell are not written yet
      if (skipped && followed) {
        std::string after;
        if (!preadExact(fd, next, kJitdumpRecordHeaderSize, after))
          break;
        if (jitdumpRecordHeaderAt(after, header()) == RecordStart::No) {
          const std::string what = parse.kind == JitdumpRecordParse::Malformed
                                       ? parse.error
                                       : jitdumpRecordName(parse.record.id) + " of " +
                                             std::to_string(size) + " bytes";
          if (!loseStep(at, at + 1, what + ", and no record follows it"))
            break;
          continue;
        }
      }
      // The record's first bytes (its code may lie past the window).
      const std::string_view bytes =
          window.from(at).substr(0, std::min<uint64_t>(size, kMaxRemembered));
      if (parse.kind == JitdumpRecordParse::Malformed) {
        reader.fileRecord(sink, nullptr, at, bytes);
        sink.onDiagnostic({reader.file_.path(), 0, where(at) + parse.error + " (record skipped)"});
        ++stats.malformed;
      } else {
        reader.fileRecord(sink, &parse.record, at, bytes);
        ++stats.records;
      }
      if (next != at + size) {
        ++stats.stepsLost;
        ++reader.stepsLost_;
        sink.onDiagnostic({reader.file_.path(), 0,
                           where(at) + jitdumpRecordName(parse.record.id) + ": total_size " +
                               std::to_string(size) +
                               " disagrees with its content: the next record starts " +
                               std::to_string(at + size - next) + " bytes earlier, at byte offset " +
                               std::to_string(next) + "; read on from there"});
      }
      at = next;
    }
    finish();
  }

  // Reading lost its step at `lost` (`problem` says how): looks for the next
  // record from `from` on. False when the walk ends here.
  bool loseStep(uint64_t lost, uint64_t from, const std::string &problem) {
    reader.lostStep_ = LostStep{lost, problem};
    at = from;
    return findStep();
  }

  // Looks for the next record from `at` on: one whose fields fit (a CODE_LOAD
  // of the process, ...) and that is followed by another, or by the end of a
  // finished file. False when the walk ends: a candidate cannot be told yet
  // (the walk goes on from it at the next read; the same bytes read in pieces
  // or whole find the same record), or none will be found.
  bool findStep() {
    LostStep &lost = *reader.lostStep_;
    for (; at < fileSize && !readFailed; ++at) {
      if (at - lost.at > kMaxBytesWithoutRecord)
        return giveUp(lost, "; no record in the " +
                                std::to_string(kMaxBytesWithoutRecord >> 20) + " MiB after it");
      const RecordStart start = recordAt(at);
      if (start == RecordStart::Unknown)
        break;
      if (start == RecordStart::No)
        continue;
      const uint64_t next =
          at + parseJitdumpRecord(window.from(at), header().byteSwapped).record.size;
      if (next - lost.at > kMaxBytesWithoutRecord)
        continue; // the search would give up before it could tell
      // A candidate that ends the file is taken only from a finished file:
      // what the writer appends next confirms it, or not.
      const RecordStart after = next < fileSize     ? recordAt(next)
                                : next == fileSize && reader.writerDone_ ? RecordStart::Yes
                                                                         : RecordStart::Unknown;
      if (after == RecordStart::Unknown)
        break;
      if (after == RecordStart::No)
        continue;
      say(lost, "; skipped " + std::to_string(at - lost.at) +
                    " bytes to the next record, at byte offset " + std::to_string(at));
      ++stats.stepsLost;
      ++reader.stepsLost_;
      reader.bytesSkipped_ += at - lost.at;
      stats.bytesSkipped += at - lost.at;
      reader.withdrawBefore(sink, at);
      reader.lostStep_.reset();
      return true;
    }
    // Said once found, or given up: a read that ends while looking says
    // nothing, so reads in pieces say what one read of the whole file says.
    if (reader.writerDone_ && !readFailed)
      return giveUp(lost, "; no record after it to the file's end");
    return false;
  }

  bool giveUp(const LostStep &lost, const std::string &why) {
    say(lost, why + ": the rest of the file is not read");
    reader.corrupt_ = stats.corrupt = true;
    reader.withdrawBefore(sink, UINT64_MAX); // the file will never hold them
    at = fileSize;
    return false;
  }

  void say(const LostStep &lost, const std::string &outcome) {
    sink.onDiagnostic({reader.file_.path(), 0, where(lost.at) + lost.problem + outcome});
  }

  void finish() {
    stats.bytesRead = at - reader.offset_;
    reader.offset_ = at;
    reader.withdrawBefore(sink, reader.offset_);
  }
};

bool looksLikeJitdump(std::string_view bytes) {
  if (bytes.size() < 4)
    return false;
  const uint32_t magic = llvm::support::endian::read32le(bytes.data());
  return magic == kJitdumpMagic || magic == llvm::byteswap(kJitdumpMagic);
}

JitdumpReader::JitdumpReader(std::string path, TrustPolicy trust)
    : file_(std::move(path), trust) {}

JitdumpReader::Damage JitdumpReader::damage() const {
  Damage damage;
  damage.stepsLost = stepsLost_;
  damage.bytesSkipped = bytesSkipped_;
  damage.corrupt = corrupt_;
  if (lostStep_)
    damage.lostAt = lostStep_->at;
  return damage;
}

void JitdumpReader::withdrawBefore(JitdumpSink &sink, uint64_t end) {
  while (!provisional_.empty() && provisional_.front().offset < end) {
    sink.onWithdrawnRecord(provisional_.front().offset);
    provisional_.pop_front();
  }
}

void JitdumpReader::fileRecord(JitdumpSink &sink, const JitdumpRecord *record, uint64_t at,
                               std::string_view bytes) {
  // A provisional record the file passed over without starting one there was
  // read in a stream that is not the file's.
  withdrawBefore(sink, at);
  if (!provisional_.empty() && provisional_.front().offset == at) {
    const Provisional &p = provisional_.front();
    const size_t common = std::min(p.bytes.size(), bytes.size());
    if (record && record->size == p.size && bytes.substr(0, common) == p.bytes.substr(0, common)) {
      provisional_.pop_front();
      sink.onConfirmedRecord(*record, at);
      return;
    }
    // The file says otherwise here: what the buffer held from here on is not
    // what the runtime wrote.
    withdrawBefore(sink, UINT64_MAX);
  }
  if (record)
    sink.onRecord(*record, at);
}

void JitdumpReader::readProvisional(JitdumpSink &sink, int fd, uint64_t fileSize,
                                    std::string_view unflushed, bool tailInDoubt,
                                    JitdumpReadStats &stats) {
  // Whatever this read does not give again is withdrawn at the end: a name
  // from the buffer lives as long as the buffer or the file holds its record.
  std::deque<Provisional> earlier = std::move(provisional_);
  provisional_.clear();
  auto withdrawEarlier = [&] {
    for (const Provisional &p : earlier)
      sink.onWithdrawnRecord(p.offset);
  };
  // With no buffered bytes the file's unread tail is still read, when the
  // walk waits at a record whose size is in doubt: what follows it names its
  // code meanwhile.
  if (unflushed.empty() && !tailInDoubt)
    return withdrawEarlier();
  // glibc between its write(2) of a full buffer and the reset of
  // _IO_write_ptr: the buffered bytes are the file's last bytes already.
  if (unflushed.size() <= fileSize) {
    std::string tail;
    if (preadExact(fd, fileSize - unflushed.size(), unflushed.size(), tail) && tail == unflushed) {
      stats.unflushedInFile = true;
      return withdrawEarlier();
    }
  }
  // The buffered bytes continue the file's unread tail (a record cut by the
  // last flush, or the header).
  const uint64_t start = header_ ? offset_ : 0;
  std::string stream;
  if (fileSize - start > kMaxProvisionalTail ||
      !preadExact(fd, start, static_cast<size_t>(fileSize - start), stream))
    return withdrawEarlier();
  stream.append(unflushed);
  const std::string_view view(stream);
  const uint64_t end = start + view.size();
  JitdumpHeader dumpHeader;
  uint64_t at = offset_;
  if (header_) {
    dumpHeader = *header_;
  } else {
    std::string error;
    std::optional<JitdumpHeader> header = parseJitdumpHeader(view, error);
    if (!error.empty())
      stats.unflushedUnreadable = true;
    if (!header || view.size() < header->headerSize)
      return withdrawEarlier();
    dumpHeader = *header;
    at = header->headerSize;
  }
  const bool swapped = dumpHeader.byteSwapped;
  // All complete records first: bytes that do not parse cleanly to the end
  // are not trusted at all (they may be another FILE's, or stale).
  std::vector<std::pair<uint64_t, JitdumpRecord>> records;
  while (at < end) {
    JitdumpRecordParse parse = parseJitdumpRecord(view.substr(at - start), swapped);
    if (parse.kind == JitdumpRecordParse::NeedBytes)
      break; // the rest is not written yet
    if (parse.kind != JitdumpRecordParse::Complete) {
      stats.unflushedUnreadable = true;
      return withdrawEarlier();
    }
    if (at + parse.record.size > end)
      break;
    // A record whose size disagrees with its content (the file's walk says so
    // once the file holds it) is taken at its content's end here too.
    const std::optional<uint64_t> next = jitdumpNextRecord(view.substr(at - start), parse, dumpHeader, /*likeliest=*/true);
    if (!next)
      break;
    records.emplace_back(at, std::move(parse.record));
    at += *next;
  }
  if (!records.empty()) {
    sink.beginProvisional();
    for (const auto &[offset, record] : records) {
      const std::string_view bytes =
          view.substr(offset - start, std::min<uint64_t>(record.size, kMaxRemembered));
      while (!earlier.empty() && earlier.front().offset < offset) {
        sink.onWithdrawnRecord(earlier.front().offset);
        earlier.pop_front();
      }
      bool seenBefore = false;
      if (!earlier.empty() && earlier.front().offset == offset) {
        seenBefore = earlier.front().size == record.size && earlier.front().bytes == bytes;
        if (seenBefore) {
          earlier.pop_front();
        } else { // from here on, the earlier bytes were not the runtime's
          withdrawEarlier();
          earlier.clear();
        }
      }
      sink.onProvisionalRecord(record, offset, seenBefore);
      provisional_.push_back({offset, record.size, std::string(bytes)});
    }
    sink.endProvisional();
    stats.provisionalRecords = records.size();
    stats.provisionalBytes = at > fileSize ? at - fileSize : 0;
  }
  withdrawEarlier();
}

llvm::Expected<JitdumpReadStats> JitdumpReader::read(JitdumpSink &sink,
                                                     std::string_view unflushed,
                                                     const InterruptCheck &interrupt) {
  llvm::Expected<AppendedFile::Opened> opened = file_.open(offset_);
  if (!opened)
    return opened.takeError();
  JitdumpReadStats stats;
  bool tailInDoubt = false;
  if (opened->replaced) {
    stats.rewritten = true;
    header_.reset();
    offset_ = 0;
    corrupt_ = false;
    lostStep_.reset();
    provisional_.clear(); // the sink forgets them with the rest
    sink.onRewrite();
  }
  const int fd = opened->fd;
  const uint64_t fileSize = opened->size;
  if (!header_) {
    std::string bytes;
    const uint64_t want = std::min<uint64_t>(fileSize, kJitdumpHeaderSize);
    if (!preadExact(fd, 0, want, bytes))
      return file_.error("cannot read the jitdump header");
    std::string error;
    std::optional<JitdumpHeader> header = parseJitdumpHeader(bytes, error);
    if (!error.empty())
      return file_.error(error);
    if (header && fileSize >= header->headerSize) {
      header_ = header;
      offset_ = header->headerSize;
      sink.onHeader(*header_);
    } else {
      stats.pendingBytes = fileSize; // the writer has not finished the header
    }
  }

  if (header_ && !corrupt_) {
    Walk walk{*this, sink, fd, fileSize, interrupt, stats, {}};
    walk.run();
    tailInDoubt = walk.tailInDoubt;
    stats.pendingBytes = corrupt_ ? 0 : fileSize - offset_;
    file_.remember(fd, offset_);
  }
  // The buffer continues the file only where the file was read to its end.
  if (!corrupt_ && !lostStep_ && !stats.interrupted)
    readProvisional(sink, fd, fileSize, unflushed, tailInDoubt, stats);
  else if (lostStep_)
    withdrawBefore(sink, UINT64_MAX); // nothing buffered continues a file out of step
  return stats;
}

} // namespace jitsym
