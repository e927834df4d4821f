// libFuzzer target: PHP's op_arrays read out of a process's memory (core
// formats/PhpOpArray.h): whatever the memory holds, the reader reads only
// through its reading function and takes only a function whose code it is.
//
// Input: one byte of name length, the name (a symbol such as "JIT$leaf"),
// then the memory: 8 bytes of executor_globals' address, the rest mapped at
// 0x10000000 (the first 512 bytes of it are also the compiler's stack).
// Checked invariants:
//  - a function found is `name`'s: its op_array's opcodes[0] handler, read
//    here, is the code's first byte, and its entry lies inside the code;
//  - the stack search and the table search agree on what they accept.
#include "jitsym/formats/PhpOpArray.h"

#include "FuzzCheck.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

using namespace jitsym;

namespace {
constexpr uint64_t kBase = 0x10000000;
constexpr AddressRange kCode{0x7f0000001000, 0x7f0000001400};

uint64_t word(std::string_view memory, uint64_t address) {
  uint64_t v = 0;
  if (address >= kBase && address - kBase + 8 <= memory.size())
    std::memcpy(&v, memory.data() + (address - kBase), 8);
  return v;
}

void checkFound(const PhpLayout &layout, std::string_view memory,
                const std::optional<PhpFunction> &found) {
  if (!found)
    return;
  const uint64_t opcodes = word(memory, found->opArray + layout.opcodes);
  CHECK(word(memory, opcodes) == kCode.start);
  CHECK(!found->entry || (*found->entry > kCode.start && *found->entry < kCode.end));
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  const size_t nameLength = std::min<size_t>(data[0], size - 1);
  const std::string_view symbol(reinterpret_cast<const char *>(data + 1), nameLength);
  data += 1 + nameLength;
  size -= 1 + nameLength;
  uint64_t globals = 0;
  if (size >= 8) {
    std::memcpy(&globals, data, 8);
    data += 8;
    size -= 8;
  }
  const std::string_view memory(reinterpret_cast<const char *>(data), size);
  const ReadPieces read = [memory](const std::vector<AddressRange> &pieces) {
    std::vector<std::string> out;
    for (size_t i = 0; i < pieces.size(); ++i) {
      const AddressRange &p = pieces[i];
      CHECK(i == 0 || pieces[i - 1].start <= p.start); // sorted, as ProcessSide wants
      const bool inside = p.start >= kBase && p.end >= p.start && p.end - kBase <= memory.size();
      out.push_back(inside ? std::string(memory.substr(p.start - kBase, p.end - p.start))
                           : std::string());
    }
    return out;
  };
  const PhpLayout &layout = *phpLayoutFor(420220829);
  const std::optional<PhpFunctionName> name = parsePhpJitName(symbol);
  if (!name)
    return 0;
  CHECK(!name->function.empty());
  checkFound(layout, memory, phpFunctionByName(layout, read, globals, *name, kCode));
  checkFound(layout, memory,
             phpFunctionOnStack(layout, read, memory.substr(0, 512), *name, kCode));
  return 0;
}
