// Function entries from a jitdump's CODE_LOAD code bytes.
#include "jitsym/symbols/JitdumpEntries.h"

#include <algorithm>
#include <string>

#include "jitsym/formats/JitdumpFormat.h"
#include "jitsym/formats/JitdumpParser.h"

namespace jitsym {

JitdumpEntries JitdumpEntries::read(std::string_view file) {
  JitdumpEntries result;
  std::string error;
  const std::optional<JitdumpHeader> header = parseJitdumpHeader(file, error);
  const Architecture *arch = header ? architectureOfElfMachine(header->elfMachine) : nullptr;
  if (!arch)
    return result;
  for (uint64_t offset = header->headerSize;
       offset < file.size() && file.size() - offset >= kJitdumpRecordHeaderSize;) {
    const JitdumpRecordParse parse =
        parseJitdumpRecord(file.substr(offset), header->byteSwapped);
    if (parse.kind == JitdumpRecordParse::NeedBytes || parse.kind == JitdumpRecordParse::Corrupt ||
        parse.record.size == 0)
      break;
    // Only records wholly in the file count (as for the symbols: a record
    // still being written announces nothing yet).
    if (parse.kind == JitdumpRecordParse::Complete && parse.record.size <= file.size() - offset) {
      const JitdumpRecord &record = parse.record;
      if (const auto *load = std::get_if<JitCodeLoad>(&record.body)) {
        if (load->codeOffset <= record.size) { // the parser checked it; bounds stay ours
          const uint64_t take = std::min<uint64_t>(
              {load->codeSize, record.size - load->codeOffset, kFramePointerProbeBytes});
          const std::string_view code = file.substr(offset + load->codeOffset, take);
          result.entries_[load->codeAddress] = entryRuleAt(*arch, llvm::ArrayRef(
              reinterpret_cast<const uint8_t *>(code.data()), code.size()));
        }
      } else if (const auto *move = std::get_if<JitCodeMove>(&record.body)) {
        if (auto it = result.entries_.find(move->oldAddress);
            it != result.entries_.end() && move->oldAddress != move->newAddress) {
          const EntryRule said = it->second;
          result.entries_.erase(it);
          result.entries_[move->newAddress] = said;
        }
      }
    }
    // Where the next record starts as the readers say (a size in doubt).
    offset += jitdumpNextRecord(file.substr(offset), parse, *header, /*likeliest=*/true)
                  .value_or(parse.record.size);
  }
  return result;
}

EntryRule JitdumpEntries::at(uint64_t start) const {
  auto it = entries_.find(start);
  return it == entries_.end() ? EntryRule{} : it->second;
}

} // namespace jitsym
