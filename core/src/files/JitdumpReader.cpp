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

bool looksLikeJitdump(std::string_view bytes) {
  if (bytes.size() < 4)
    return false;
  const uint32_t magic = llvm::support::endian::read32le(bytes.data());
  return magic == kJitdumpMagic || magic == llvm::byteswap(kJitdumpMagic);
}

JitdumpReader::JitdumpReader(std::string path, TrustPolicy trust)
    : file_(std::move(path), trust) {}

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
                                    std::string_view unflushed, JitdumpReadStats &stats) {
  // Whatever this read does not give again is withdrawn at the end: a name
  // from the buffer lives as long as the buffer or the file holds its record.
  std::deque<Provisional> earlier = std::move(provisional_);
  provisional_.clear();
  auto withdrawEarlier = [&] {
    for (const Provisional &p : earlier)
      sink.onWithdrawnRecord(p.offset);
  };
  if (unflushed.empty())
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
  bool swapped = false;
  uint64_t at = offset_;
  if (header_) {
    swapped = header_->byteSwapped;
  } else {
    std::string error;
    std::optional<JitdumpHeader> header = parseJitdumpHeader(view, error);
    if (!error.empty())
      stats.unflushedUnreadable = true;
    if (!header || view.size() < header->headerSize)
      return withdrawEarlier();
    swapped = header->byteSwapped;
    at = header->headerSize;
  }
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
    records.emplace_back(at, std::move(parse.record));
    at += records.back().second.size;
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
  if (opened->replaced) {
    stats.rewritten = true;
    header_.reset();
    offset_ = 0;
    corrupt_ = false;
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
    Window window;
    uint64_t at = offset_;
    while (at < fileSize) {
      JitdumpRecordParse parse = parseJitdumpRecord(window.from(at), header_->byteSwapped);
      if (parse.kind == JitdumpRecordParse::NeedBytes) {
        if (at + parse.needBytes > fileSize)
          break; // still being written
        if (at > offset_ && interruptRequested(interrupt)) {
          stats.interrupted = true;
          break;
        }
        const uint64_t want =
            std::min<uint64_t>(fileSize - at, std::max<uint64_t>(kChunkBytes, parse.needBytes));
        window.start = at;
        if (!preadExact(fd, at, static_cast<size_t>(want), window.bytes))
          break; // the file shrank: found rewritten at the next read
        continue;
      }
      auto where = [&] { return "byte offset " + std::to_string(at) + ": "; };
      if (parse.kind == JitdumpRecordParse::Corrupt) {
        sink.onDiagnostic(
            {file_.path(), 0, where() + parse.error + "; the rest of the file is not read"});
        stats.corrupt = corrupt_ = true;
        withdrawBefore(sink, UINT64_MAX); // the file will never hold them
        break;
      }
      if (at + parse.record.size > fileSize)
        break; // cut off at the end: waits until it is complete
      // The record's first bytes (its code may lie past the window).
      const std::string_view bytes = window.from(at).substr(
          0, std::min<uint64_t>(parse.record.size, kMaxRemembered));
      if (parse.kind == JitdumpRecordParse::Malformed) {
        fileRecord(sink, nullptr, at, bytes);
        sink.onDiagnostic({file_.path(), 0, where() + parse.error + " (record skipped)"});
        ++stats.malformed;
      } else {
        fileRecord(sink, &parse.record, at, bytes);
        ++stats.records;
      }
      at += parse.record.size;
    }
    stats.bytesRead = at - offset_;
    offset_ = at;
    withdrawBefore(sink, offset_);
    stats.pendingBytes = corrupt_ ? 0 : fileSize - offset_;
    file_.remember(fd, offset_);
  }
  // The buffer continues the file only where the file was read to its end.
  if (!corrupt_ && !stats.interrupted)
    readProvisional(sink, fd, fileSize, unflushed, stats);
  return stats;
}

} // namespace jitsym
