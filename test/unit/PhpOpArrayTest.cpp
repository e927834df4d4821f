// PHP's op_arrays read from memory (core formats/PhpOpArray.h), over a fake
// process image laid out as PHP 8.2's engine lays it out.
#include "jitsym/formats/PhpOpArray.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>

using namespace jitsym;

namespace {

// One region of memory at kBase; reads outside it come back empty.
constexpr uint64_t kBase = 0x10000000;

class Image {
public:
  Image() : bytes_(64 * 1024, '\0') {}
  void u64(uint64_t at, uint64_t v) { std::memcpy(&bytes_[at - kBase], &v, 8); }
  void u32(uint64_t at, uint32_t v) { std::memcpy(&bytes_[at - kBase], &v, 4); }
  void u8(uint64_t at, uint8_t v) { bytes_[at - kBase] = static_cast<char>(v); }
  // A zend_string: gc, h, len, val.
  uint64_t string(std::string_view text) {
    const uint64_t at = take(24 + text.size() + 1);
    u64(at + 8, phpStringHash(text));
    u64(at + 16, text.size());
    std::memcpy(&bytes_[at + 24 - kBase], text.data(), text.size());
    return at;
  }
  uint64_t take(uint64_t size) {
    const uint64_t at = next_;
    next_ += (size + 15) / 16 * 16;
    return at;
  }
  ReadPieces reader() const {
    return [this](const std::vector<AddressRange> &pieces) {
      std::vector<std::string> out;
      for (const AddressRange &p : pieces)
        out.push_back(p.start >= kBase && p.end >= p.start && p.end <= kBase + bytes_.size()
                          ? bytes_.substr(p.start - kBase, p.end - p.start)
                          : std::string());
      return out;
    };
  }

private:
  std::string bytes_;
  uint64_t next_ = kBase + 0x100;
};

const PhpLayout &php82() { return *phpLayoutFor(420220829); }

// A HashTable of string keys to pointers, of 8 slots, as zend_hash makes one.
void table(Image &m, uint64_t at, const std::vector<std::pair<std::string, uint64_t>> &entries) {
  const uint32_t size = 8, mask = uint32_t(-16); // 2 * size hash slots
  const uint64_t block = m.take(16 * 4 + size * 32);
  const uint64_t data = block + 16 * 4;
  for (int slot = 1; slot <= 16; ++slot)
    m.u32(data - 4 * slot, 0xffffffff);
  for (uint32_t i = 0; i < entries.size(); ++i) {
    const uint64_t bucket = data + 32 * i;
    const uint64_t key = m.string(entries[i].first);
    const uint64_t h = phpStringHash(entries[i].first);
    m.u64(bucket, entries[i].second);
    m.u32(bucket + 8, 13); // IS_PTR
    const auto slot = static_cast<int32_t>(static_cast<uint32_t>(h) | mask);
    const uint64_t slotAt = data - uint64_t(-int64_t(slot)) * 4;
    uint32_t previous = 0;
    std::memcpy(&previous, m.reader()({{slotAt, slotAt + 4}})[0].data(), 4);
    m.u32(bucket + 12, previous); // Z_NEXT: the chain so far
    m.u32(slotAt, i);
    m.u64(bucket + 16, h);
    m.u64(bucket + 24, key);
  }
  m.u32(at + 8, 0);     // flags: a hash, not packed
  m.u32(at + 12, mask);
  m.u64(at + 16, data);
  m.u32(at + 24, static_cast<uint32_t>(entries.size()));
  m.u32(at + 32, size);
}

// A user function whose code is [code, code + 0x400), entered at +34 past
// its one argument's RECV.
uint64_t opArray(Image &m, std::string_view name, uint64_t code, uint32_t numArgs = 1) {
  const uint64_t op = m.take(168);
  const uint64_t opcodes = m.take(32 * 4);
  m.u8(op, 2); // ZEND_USER_FUNCTION
  m.u64(op + 8, m.string(name));
  m.u32(op + 32, numArgs);
  m.u64(op + 88, opcodes);
  m.u64(op + 152, m.string("/app/prog.php"));
  m.u32(op + 160, 10);
  m.u64(opcodes, code);
  m.u64(opcodes + 32 * numArgs, code + 34);
  return op;
}

constexpr uint64_t kCode = 0x7f0000001000;
const AddressRange kRange{kCode, kCode + 0x400};

} // namespace

TEST(PhpOpArray, NamesOfFunctionsAndMethodsOnly) {
  // Names as opcache 8.2.36 wrote them (the runtime matrix's prog.php, and
  // a class, a closure, stubs, a trace, a script's main code).
  auto leaf = parsePhpJitName("JIT$leaf");
  ASSERT_TRUE(leaf);
  EXPECT_EQ(leaf->scope, "");
  EXPECT_EQ(leaf->function, "leaf");
  auto method = parsePhpJitName("JIT$Shop\\Cart::add");
  ASSERT_TRUE(method);
  EXPECT_EQ(method->scope, "Shop\\Cart");
  EXPECT_EQ(method->function, "add");
  for (const char *other : {"JIT$$interrupt_handler", "JIT$/work/prog.php", "JIT${closure}",
                            "TRACE-3$outer_loop$6", "ESCAPE-3-1", "JIT$", "JIT$::run", "leaf"})
    EXPECT_FALSE(parsePhpJitName(other)) << other;
}

TEST(PhpOpArray, HashIsTheEngines) {
  // zend_inline_hash_func's values, from a program built on php8.2-dev's headers.
  EXPECT_EQ(phpStringHash("leaf"), 0x800000017c9a02fdull);
  EXPECT_EQ(phpStringHash("outerloop"), 0x8377d40b43706d2eull);
  EXPECT_EQ(phpLayoutFor(420220829)->version, std::string("PHP 8.2"));
  EXPECT_EQ(phpLayoutFor(420230831), nullptr); // PHP 8.3: not known
}

TEST(PhpOpArray, FoundInTheFunctionTableWithItsEntry) {
  Image m;
  const uint64_t globals = m.take(512);
  const uint64_t functions = m.take(56);
  const uint64_t leaf = opArray(m, "leaf", kCode);
  table(m, functions, {{"strlen", 0}, {"leaf", leaf}, {"middle", 0}});
  m.u64(globals + 432, functions);
  const auto found = phpFunctionByName(php82(), m.reader(), globals, {"", "leaf"}, kRange);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->opArray, leaf);
  EXPECT_EQ(found->entry, kCode + 34);
  EXPECT_EQ(found->file, "/app/prog.php");
  EXPECT_EQ(found->line, 10u);
  // The key is the lower-cased name; the name must be the op_array's own.
  EXPECT_TRUE(phpFunctionByName(php82(), m.reader(), globals, {"", "LEAF"}, kRange) == std::nullopt);
  EXPECT_FALSE(phpFunctionByName(php82(), m.reader(), globals, {"", "other"}, kRange));
}

TEST(PhpOpArray, OtherCodeOrAnEntryOutsideIsNotTaken) {
  Image m;
  const uint64_t globals = m.take(512);
  const uint64_t functions = m.take(56);
  const uint64_t leaf = opArray(m, "leaf", kCode);
  table(m, functions, {{"leaf", leaf}});
  m.u64(globals + 432, functions);
  // The function's code is elsewhere (compiled again): not this symbol's.
  EXPECT_FALSE(phpFunctionByName(php82(), m.reader(), globals, {"", "leaf"},
                                 {kCode + 0x1000, kCode + 0x1400}));
  // Its entry past the symbol's end: found, entered at the start.
  const auto shorter = phpFunctionByName(php82(), m.reader(), globals, {"", "leaf"},
                                         {kCode, kCode + 20});
  ASSERT_TRUE(shorter);
  EXPECT_FALSE(shorter->entry);
}

TEST(PhpOpArray, MethodsThroughTheClassTable) {
  Image m;
  const uint64_t globals = m.take(512);
  const uint64_t classes = m.take(56);
  const uint64_t cart = m.take(512); // a zend_class_entry
  const uint64_t add = opArray(m, "add", kCode, 2);
  table(m, cart + 64, {{"add", add}});
  table(m, classes, {{"shop\\cart", cart}});
  m.u64(globals + 440, classes);
  const auto found = phpFunctionByName(php82(), m.reader(), globals, {"Shop\\Cart", "add"}, kRange);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->entry, kCode + 34);
}

TEST(PhpOpArray, FoundOnTheCompilersStack) {
  Image m;
  const uint64_t leaf = opArray(m, "leaf", kCode);
  const uint64_t other = opArray(m, "middle", kCode + 0x2000);
  std::string stack(256, '\0');
  const uint64_t words[] = {0, 0x20, other, 0xdeadbeef00, kBase + 8, leaf, 7};
  std::memcpy(stack.data(), words, sizeof words);
  const auto found = phpFunctionOnStack(php82(), m.reader(), stack, {"", "leaf"}, kRange);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->opArray, leaf);
  EXPECT_EQ(found->entry, kCode + 34);
  // The op_array of the code at the start but of another name: not taken.
  EXPECT_FALSE(phpFunctionOnStack(php82(), m.reader(), stack, {"", "top"}, kRange));
  EXPECT_FALSE(phpFunctionOnStack(php82(), m.reader(), std::string(64, '\0'), {"", "leaf"}, kRange));
}
