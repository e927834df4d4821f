// File I/O for jitdump files: chunked reads from the last complete record on,
// records handed to the parser one boundary at a time.
#include "jitsym/JitdumpReader.h"

#include <algorithm>

#include "llvm/Support/Endian.h"

namespace jitsym {
namespace {

constexpr size_t kChunkBytes = 4u << 20;

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

bool JitdumpReader::readBytes(int fd, uint64_t fileSize, std::string_view unflushed,
                              uint64_t at, uint64_t size, std::string &out) const {
  // preadExact resizes `out` in place: a window of the same size as the last
  // one is not cleared and zero-filled again (that cost 20% of a 100 MB read).
  if (at < fileSize) {
    const uint64_t fromFile = std::min(size, fileSize - at);
    if (!preadExact(fd, at, static_cast<size_t>(fromFile), out))
      return false;
    at += fromFile;
    size -= fromFile;
  } else {
    out.clear();
  }
  if (size == 0)
    return true;
  const uint64_t skip = at - fileSize;
  if (skip + size > unflushed.size())
    return false;
  out.append(unflushed.substr(static_cast<size_t>(skip), static_cast<size_t>(size)));
  return true;
}

llvm::Expected<JitdumpReadStats> JitdumpReader::read(JitdumpSink &sink,
                                                     std::string_view unflushed,
                                                     const InterruptCheck &interrupt) {
  // Bytes read from the buffer earlier and not in the file yet are not a sign
  // of a rewrite: only the file's own bytes count as consumed.
  llvm::Expected<AppendedFile::Opened> opened = file_.open(std::min(offset_, fileConsumed_));
  if (!opened)
    return opened.takeError();
  JitdumpReadStats stats;
  if (opened->replaced) {
    stats.rewritten = true;
    header_.reset();
    offset_ = fileConsumed_ = 0;
    corrupt_ = false;
    sink.onRewrite();
  }
  const int fd = opened->fd;
  const uint64_t fileSize = opened->size;
  // What can be read: the file, then what is still buffered after its end.
  const uint64_t size = fileSize + unflushed.size();
  if (!header_) {
    std::string bytes;
    const uint64_t want = std::min<uint64_t>(size, kJitdumpHeaderSize);
    if (!readBytes(fd, fileSize, unflushed, 0, want, bytes))
      return file_.error("cannot read the jitdump header");
    std::string error;
    std::optional<JitdumpHeader> header = parseJitdumpHeader(bytes, error);
    if (!error.empty())
      return file_.error(error);
    if (!header || size < header->headerSize) {
      stats.pendingBytes = size; // the writer has not finished the header
      return stats;
    }
    header_ = header;
    offset_ = header->headerSize;
    sink.onHeader(*header_);
  }
  if (corrupt_)
    return stats;

  Window window;
  uint64_t at = offset_;
  while (at < size) {
    JitdumpRecordParse parse = parseJitdumpRecord(window.from(at), header_->byteSwapped);
    if (parse.kind == JitdumpRecordParse::NeedBytes) {
      if (at + parse.needBytes > size)
        break; // still being written
      if (at > offset_ && interruptRequested(interrupt)) {
        stats.interrupted = true;
        break;
      }
      const uint64_t want =
          std::min<uint64_t>(size - at, std::max<uint64_t>(kChunkBytes, parse.needBytes));
      window.start = at;
      if (!readBytes(fd, fileSize, unflushed, at, want, window.bytes))
        break; // the file shrank: found rewritten at the next read
      continue;
    }
    auto where = [&] { return "byte offset " + std::to_string(at) + ": "; };
    if (parse.kind == JitdumpRecordParse::Corrupt) {
      sink.onDiagnostic({file_.path(), 0, where() + parse.error + "; the rest of the file is not read"});
      stats.corrupt = corrupt_ = true;
      break;
    }
    if (at + parse.record.size > size)
      break; // cut off at the end: waits until it is complete
    if (parse.kind == JitdumpRecordParse::Malformed) {
      sink.onDiagnostic({file_.path(), 0, where() + parse.error + " (record skipped)"});
      ++stats.malformed;
    } else {
      sink.onRecord(parse.record, at);
      ++stats.records;
    }
    at += parse.record.size;
  }
  stats.bytesRead = at > offset_ ? at - offset_ : 0;
  offset_ = std::max(offset_, at);
  fileConsumed_ = std::min(offset_, fileSize);
  stats.pendingBytes = corrupt_ || at >= size ? 0 : size - at;
  file_.remember(fd, fileConsumed_);
  return stats;
}

} // namespace jitsym
