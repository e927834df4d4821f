// The in-process write filter's reading of perf map lines and jitdump records.
#include "jitsym/formats/AnnouncementScanner.h"

#include <algorithm>
#include <cstring>

#include "jitsym/formats/JitdumpFormat.h"
#include "jitsym/formats/PerfMapLine.h"

namespace jitsym {

bool PerfMapScanner::add(std::string_view bytes, const jitsym_watch_list &list) {
  bool wanted = false;
  // Lines of the runtime's: at most a few KiB. A longer one is not a line.
  constexpr size_t kMaxLine = 1 << 16;
  while (!bytes.empty()) {
    const size_t newline = bytes.find('\n');
    const std::string_view piece = bytes.substr(0, newline);
    if (partial_.size() < kMaxLine)
      partial_.append(piece.substr(0, kMaxLine - partial_.size()));
    if (newline == std::string_view::npos)
      break;
    bytes.remove_prefix(newline + 1);
    if (partial_.find_first_not_of(" \t\r") != std::string::npos) {
      PerfMapEntry entry;
      std::string error;
      wanted |= !parsePerfMapLine(partial_, entry, error) ||
                watchListWants(list, entry.name, entry.address, entry.size ? entry.size : 1);
    }
    partial_.clear();
  }
  return wanted;
}

namespace {

template <typename T> bool readStruct(const JitdumpScanner::Reader &read, uint64_t at, T &out) {
  return read(at, sizeof(T), reinterpret_cast<char *>(&out));
}

} // namespace

bool JitdumpScanner::resumeAt(uint64_t end, const Reader &read) {
  *this = JitdumpScanner();
  position_ = end;
  uint64_t at = 0; // where the header or record in progress at `end` began
  jitheader header;
  if (end >= kJitdumpHeaderSize) {
    if (!readStruct(read, 0, header) || header.magic != kJitdumpMagic ||
        header.total_size < kJitdumpHeaderSize || header.total_size > kJitdumpMaxRecordSize) {
      lost_ = true;
      return false;
    }
    if (header.total_size <= end) {
      inHeader_ = false;
      at = header.total_size;
      while (at + kJitdumpRecordHeaderSize <= end) {
        jr_prefix prefix;
        if (!readStruct(read, at, prefix) || prefix.total_size < kJitdumpRecordHeaderSize ||
            prefix.total_size > kJitdumpMaxRecordSize) {
          lost_ = true;
          return false;
        }
        if (at + prefix.total_size > end)
          break;
        at += prefix.total_size;
      }
    }
  }
  recordStart_ = at;
  record_.resize(static_cast<size_t>(std::min<uint64_t>(end - at, kKeptBytes)));
  if (!record_.empty() && !read(at, record_.size(), record_.data())) {
    lost_ = true;
    return false;
  }
  return true;
}

bool JitdumpScanner::decide(const jitsym_watch_list &list) const {
  jr_prefix prefix;
  std::memcpy(&prefix, record_.data(), sizeof prefix);
  if (prefix.id == static_cast<uint32_t>(JitdumpRecordId::CodeLoad) &&
      record_.size() >= sizeof(jr_code_load)) {
    jr_code_load load;
    std::memcpy(&load, record_.data(), sizeof load);
    std::string_view name(record_.data() + sizeof load, record_.size() - sizeof load);
    name = name.substr(0, name.find('\0'));
    return watchListWants(list, name, load.code_addr, load.code_size ? load.code_size : 1);
  }
  if (prefix.id == static_cast<uint32_t>(JitdumpRecordId::CodeMove) &&
      record_.size() >= sizeof(jr_code_move)) {
    jr_code_move move;
    std::memcpy(&move, record_.data(), sizeof move);
    // Code over a location (it moves with it), or code moved over one.
    const uint64_t size = move.code_size ? move.code_size : 1;
    return watchListWants(list, {}, move.old_code_addr, size) ||
           watchListWants(list, {}, move.new_code_addr, size);
  }
  // jitsym's own entry and unload records come from producers with the hook;
  // debug info and unwinding info precede the CODE_LOAD they belong to.
  return false;
}

bool JitdumpScanner::add(std::string_view bytes, const jitsym_watch_list &list) {
  if (lost_)
    return true;
  bool wanted = false;
  while (!bytes.empty()) {
    // The header's or the record's size, once its size field is in.
    const size_t sizeField = inHeader_ ? offsetof(jitheader, total_size) + 4 : kJitdumpRecordHeaderSize;
    if (recordSize_ == 0) {
      if (record_.size() < sizeField) {
        const size_t take = std::min(bytes.size(), sizeField - record_.size());
        record_.append(bytes.substr(0, take));
        bytes.remove_prefix(take);
        position_ += take;
        if (record_.size() < sizeField)
          break;
      }
      uint32_t size = 0;
      std::memcpy(&size, record_.data() + (inHeader_ ? offsetof(jitheader, total_size) : 4), 4);
      uint32_t magic = 0;
      std::memcpy(&magic, record_.data(), 4);
      if ((inHeader_ && (magic != kJitdumpMagic || size < kJitdumpHeaderSize)) ||
          (!inHeader_ && size < kJitdumpRecordHeaderSize) || size > kJitdumpMaxRecordSize) {
        lost_ = true;
        return true;
      }
      recordSize_ = size;
    }
    const uint64_t left = recordStart_ + recordSize_ - position_;
    const size_t take = static_cast<size_t>(std::min<uint64_t>(bytes.size(), left));
    if (record_.size() < kKeptBytes)
      record_.append(bytes.substr(0, std::min(take, kKeptBytes - record_.size())));
    bytes.remove_prefix(take);
    position_ += take;
    if (position_ < recordStart_ + recordSize_)
      break;
    if (!inHeader_)
      wanted |= decide(list);
    inHeader_ = false;
    recordStart_ = position_;
    recordSize_ = 0;
    record_.clear();
  }
  return wanted;
}

} // namespace jitsym
