// PHP's op_arrays read from a process's memory (PhpOpArray.h). Every read is
// checked: a short or failed read, an implausible size or a table that does
// not look like the engine's gives nothing, never a wrong entry.
#include "jitsym/formats/PhpOpArray.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <unordered_set>

namespace jitsym {
namespace {

// Offsets checked with offsetof against php8.2-dev's headers
// (/usr/include/php/20220829), the same on x86-64 and aarch64.
constexpr PhpLayout kPhp82{420220829, "PHP 8.2", 432, 440, 64, 0, 8, 32, 88, 152, 160, 32, 256, 312};

constexpr uint8_t kUserFunction = 2;     // ZEND_USER_FUNCTION
constexpr uint8_t kIsPtr = 13;           // a zval holding a pointer (IS_PTR)
constexpr uint8_t kIsAliasPtr = 14;      // a class alias's (IS_ALIAS_PTR)
constexpr uint32_t kPacked = 1u << 2;    // HASH_FLAG_PACKED: no string keys
constexpr uint32_t kUninitialized = 1u << 3;
constexpr uint32_t kInvalidIndex = 0xffffffff;
constexpr size_t kStringHeader = 24;     // zend_string: gc, h, len, then val
constexpr size_t kBucketSize = 32;       // zval val, h, key
constexpr size_t kHashTableSize = 56;
constexpr uint64_t kMaxNameBytes = 4096;
constexpr uint64_t kMaxArgs = 65535;
// A chain of one hash slot: the engine keeps its tables at most half full,
// so a real chain is a few buckets long; a cycle in bad memory ends here.
constexpr uint32_t kMaxChain = 1024;

uint64_t u64(std::string_view bytes, size_t at) {
  uint64_t v = 0;
  if (at + 8 <= bytes.size())
    std::memcpy(&v, bytes.data() + at, 8);
  return v;
}
uint32_t u32(std::string_view bytes, size_t at) {
  uint32_t v = 0;
  if (at + 4 <= bytes.size())
    std::memcpy(&v, bytes.data() + at, 4);
  return v;
}

bool plausiblePointer(uint64_t p) { return p >= 0x10000 && p < (uint64_t(1) << 56) && p % 8 == 0; }

// `read` wants its pieces sorted: read in that order, answered in ours.
std::vector<std::string> readAny(const ReadPieces &read, const std::vector<AddressRange> &pieces) {
  std::vector<size_t> order(pieces.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return pieces[a].start < pieces[b].start; });
  std::vector<AddressRange> sorted;
  sorted.reserve(pieces.size());
  for (size_t i : order)
    sorted.push_back(pieces[i]);
  std::vector<std::string> got = read(sorted);
  std::vector<std::string> answers(pieces.size());
  for (size_t i = 0; i < order.size() && i < got.size(); ++i)
    answers[order[i]] = std::move(got[i]);
  return answers;
}

std::optional<std::string> readOne(const ReadPieces &read, uint64_t address, uint64_t size) {
  if (address + size < address)
    return std::nullopt;
  std::vector<std::string> got = read({{address, address + size}});
  if (got.size() != 1 || got[0].size() != size)
    return std::nullopt;
  return std::move(got[0]);
}

// A zend_string's bytes.
std::optional<std::string> readString(const ReadPieces &read, uint64_t address) {
  if (!plausiblePointer(address))
    return std::nullopt;
  const std::optional<std::string> header = readOne(read, address, kStringHeader);
  if (!header)
    return std::nullopt;
  const uint64_t length = u64(*header, 16);
  if (length > kMaxNameBytes)
    return std::nullopt;
  return readOne(read, address + kStringHeader, length);
}

std::string lowered(std::string_view text) {
  std::string out(text);
  for (char &c : out)
    if (c >= 'A' && c <= 'Z')
      c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// zend_hash_find: the pointer a string key holds, through the table's hash
// slots and their chains, as the engine walks them.
std::optional<uint64_t> findPointer(const ReadPieces &read, uint64_t table, std::string_view key) {
  const std::optional<std::string> ht = readOne(read, table, kHashTableSize);
  if (!ht)
    return std::nullopt;
  const uint32_t flags = u32(*ht, 8), mask = u32(*ht, 12), used = u32(*ht, 24);
  const uint32_t size = u32(*ht, 32);
  const uint64_t data = u64(*ht, 16);
  if ((flags & (kPacked | kUninitialized)) || !plausiblePointer(data) || used > size ||
      size > (1u << 30) || (size & (size - 1)) != 0)
    return std::nullopt;
  const uint64_t hash = phpStringHash(key);
  const auto slot = static_cast<int32_t>(static_cast<uint32_t>(hash) | mask);
  if (slot >= 0)
    return std::nullopt; // the slots sit below arData: the index is negative
  const std::optional<std::string> first =
      readOne(read, data - uint64_t(-int64_t(slot)) * 4, 4);
  if (!first)
    return std::nullopt;
  uint32_t index = u32(*first, 0);
  for (uint32_t steps = 0; index != kInvalidIndex && steps < kMaxChain; ++steps) {
    if (index >= used)
      return std::nullopt;
    const std::optional<std::string> bucket = readOne(read, data + uint64_t(index) * kBucketSize,
                                                      kBucketSize);
    if (!bucket)
      return std::nullopt;
    if (u64(*bucket, 16) == hash) {
      const std::optional<std::string> name = readString(read, u64(*bucket, 24));
      const uint8_t type = static_cast<uint8_t>(u32(*bucket, 8));
      if (name && *name == key && (type == kIsPtr || type == kIsAliasPtr))
        return u64(*bucket, 0);
    }
    index = u32(*bucket, 12); // Z_NEXT(val)
  }
  return std::nullopt;
}

} // namespace

const PhpLayout *phpLayoutFor(uint32_t zendExtensionApi) {
  return zendExtensionApi == kPhp82.zendExtensionApi ? &kPhp82 : nullptr;
}

uint64_t phpStringHash(std::string_view text) {
  uint64_t hash = 5381;
  for (char c : text) // `char` as PHP adds it on x86-64: signed
    hash = hash * 33 + static_cast<uint64_t>(static_cast<int64_t>(static_cast<signed char>(c)));
  return hash | 0x8000000000000000ull;
}

std::optional<PhpFunctionName> parsePhpJitName(std::string_view symbol) {
  constexpr std::string_view prefix = "JIT$";
  if (symbol.substr(0, prefix.size()) != prefix)
    return std::nullopt;
  std::string_view rest = symbol.substr(prefix.size());
  // Stubs (JIT$$...), a script's main code (JIT$/path/script.php), closures.
  if (rest.empty() || rest[0] == '$' || rest[0] == '/' || rest.find('{') != std::string_view::npos)
    return std::nullopt;
  PhpFunctionName name;
  if (const size_t colons = rest.rfind("::"); colons != std::string_view::npos) {
    name.scope = std::string(rest.substr(0, colons));
    rest = rest.substr(colons + 2);
    if (name.scope.empty())
      return std::nullopt;
  }
  if (rest.empty() || rest.find_first_of("$/ ") != std::string_view::npos)
    return std::nullopt;
  name.function = std::string(rest);
  return name;
}

std::optional<PhpFunction> phpFunctionAt(const PhpLayout &layout, const ReadPieces &read,
                                         uint64_t opArray, const PhpFunctionName &name,
                                         const AddressRange &code) {
  if (!plausiblePointer(opArray))
    return std::nullopt;
  const std::optional<std::string> head = readOne(read, opArray, layout.lineStart + 4);
  if (!head || static_cast<uint8_t>((*head)[layout.type]) != kUserFunction)
    return std::nullopt;
  const uint64_t opcodes = u64(*head, layout.opcodes);
  const uint32_t numArgs = u32(*head, layout.numArgs);
  if (!plausiblePointer(opcodes) || numArgs > kMaxArgs)
    return std::nullopt;
  const std::vector<std::string> handlers =
      readAny(read, {{opcodes, opcodes + 8},
                     {opcodes + uint64_t(numArgs) * layout.opSize,
                      opcodes + uint64_t(numArgs) * layout.opSize + 8}});
  if (handlers.size() != 2 || handlers[0].size() != 8 || u64(handlers[0], 0) != code.start)
    return std::nullopt;
  const std::optional<std::string> function = readString(read, u64(*head, layout.functionName));
  if (!function || *function != name.function)
    return std::nullopt;
  PhpFunction found;
  found.opArray = opArray;
  if (handlers[1].size() == 8) {
    const uint64_t entry = u64(handlers[1], 0);
    if (entry > code.start && entry < code.end)
      found.entry = entry;
  }
  found.fileString = u64(*head, layout.filename);
  if (std::optional<std::string> file = readString(read, found.fileString))
    found.file = std::move(*file);
  found.line = u32(*head, layout.lineStart);
  return found;
}

namespace {

// The function in a function table, or a method in a class table's class.
std::optional<PhpFunction> lookUp(const PhpLayout &layout, const ReadPieces &read,
                                  uint64_t functions, uint64_t classes,
                                  const PhpFunctionName &name, const AddressRange &code) {
  uint64_t table = functions;
  if (!name.scope.empty()) {
    const std::optional<uint64_t> classEntry =
        plausiblePointer(classes) ? findPointer(read, classes, lowered(name.scope)) : std::nullopt;
    if (!classEntry || !plausiblePointer(*classEntry))
      return std::nullopt;
    table = *classEntry + layout.classFunctionTable;
  }
  if (!plausiblePointer(table))
    return std::nullopt;
  const std::optional<uint64_t> opArray = findPointer(read, table, lowered(name.function));
  if (!opArray)
    return std::nullopt;
  return phpFunctionAt(layout, read, *opArray, name, code);
}

} // namespace

std::optional<PhpFunction> phpFunctionByName(const PhpLayout &layout, const ReadPieces &read,
                                             uint64_t executorGlobals,
                                             const PhpFunctionName &name,
                                             const AddressRange &code) {
  const std::vector<std::string> globals =
      readAny(read, {{executorGlobals + layout.functionTable, executorGlobals + layout.functionTable + 8},
                     {executorGlobals + layout.classTable, executorGlobals + layout.classTable + 8}});
  if (globals.size() != 2 || globals[0].size() != 8 || globals[1].size() != 8)
    return std::nullopt;
  return lookUp(layout, read, u64(globals[0], 0), u64(globals[1], 0), name, code);
}

std::optional<PhpFunction> phpFunctionInScript(const PhpLayout &layout, const ReadPieces &read,
                                               uint64_t script, const PhpFunctionName &name,
                                               const AddressRange &code) {
  if (!plausiblePointer(script))
    return std::nullopt;
  return lookUp(layout, read, script + layout.scriptFunctionTable,
                script + layout.scriptClassTable, name, code);
}

std::optional<uint64_t> phpScriptOnStack(const PhpLayout &layout, const ReadPieces &read,
                                         std::string_view stack, const PhpFunction &compiled) {
  if (!plausiblePointer(compiled.fileString))
    return std::nullopt;
  std::vector<AddressRange> firsts;
  std::unordered_set<uint64_t> seen;
  for (size_t at = 0; at + 8 <= stack.size(); at += 8) {
    const uint64_t word = u64(stack, at);
    if (plausiblePointer(word) && word != compiled.opArray && seen.insert(word).second)
      firsts.push_back({word, word + 8});
  }
  const std::vector<std::string> got = readAny(read, firsts);
  for (size_t i = 0; i < firsts.size() && i < got.size(); ++i)
    if (got[i].size() == 8 && u64(got[i], 0) == compiled.fileString) {
      // A zend_script's function table is a hash of string keys.
      const std::optional<std::string> ht =
          readOne(read, firsts[i].start + layout.scriptFunctionTable, kHashTableSize);
      if (ht && !(u32(*ht, 8) & kPacked) && plausiblePointer(u64(*ht, 16)))
        return firsts[i].start;
    }
  return std::nullopt;
}

std::optional<PhpFunction> phpFunctionOnStack(const PhpLayout &layout, const ReadPieces &read,
                                              std::string_view stack, const PhpFunctionName &name,
                                              const AddressRange &code) {
  // First the op_array's type and opcodes pointer of every distinct word that
  // could point at one, in one batch; then opcodes[0]'s handler of those that
  // look like a user function's; the first entered at the code's start wins.
  std::vector<uint64_t> candidates;
  std::unordered_set<uint64_t> seen;
  for (size_t at = 0; at + 8 <= stack.size(); at += 8) {
    const uint64_t word = u64(stack, at);
    if (plausiblePointer(word) && seen.insert(word).second)
      candidates.push_back(word);
  }
  std::vector<AddressRange> heads;
  for (uint64_t c : candidates)
    heads.push_back({c, c + layout.opcodes + 8});
  const std::vector<std::string> headBytes = readAny(read, heads);
  std::vector<uint64_t> users;
  std::vector<AddressRange> firstHandlers;
  for (size_t i = 0; i < candidates.size() && i < headBytes.size(); ++i) {
    const std::string &h = headBytes[i];
    if (h.size() != layout.opcodes + 8 || static_cast<uint8_t>(h[layout.type]) != kUserFunction)
      continue;
    const uint64_t opcodes = u64(h, layout.opcodes);
    if (!plausiblePointer(opcodes))
      continue;
    users.push_back(candidates[i]);
    firstHandlers.push_back({opcodes, opcodes + 8});
  }
  const std::vector<std::string> handlers = readAny(read, firstHandlers);
  for (size_t i = 0; i < users.size() && i < handlers.size(); ++i)
    if (handlers[i].size() == 8 && u64(handlers[i], 0) == code.start)
      if (std::optional<PhpFunction> found = phpFunctionAt(layout, read, users[i], name, code))
        return found;
  return std::nullopt;
}

} // namespace jitsym
