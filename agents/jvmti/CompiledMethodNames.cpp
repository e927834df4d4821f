#include "CompiledMethodNames.h"

#include <cstring>
#include <utility>

namespace jitsym::jvmti {
namespace {

bool aligned(uintptr_t address, uintptr_t alignment) {
  return address != 0 && address % alignment == 0;
}

// `text` is a method's unqualified name (JVMS 4.2.2): <init>, <clinit>, or
// no . ; [ / < >.
bool isMethodName(const std::string &text) {
  if (text == "<init>" || text == "<clinit>")
    return true;
  return !text.empty() && text.find_first_of(".;[/<>") == std::string::npos;
}

// `text` is a method descriptor (JVMS 4.3.3): '(' field types ')' and a
// field type or V; a class name non-empty and without . [ ( ).
bool isMethodDescriptor(const std::string &text) {
  size_t at = 0;
  const auto fieldType = [&] {
    while (at < text.size() && text[at] == '[')
      ++at;
    if (at >= text.size())
      return false;
    const char kind = text[at++];
    if (kind == 'L') {
      const size_t end = text.find(';', at);
      if (end == std::string::npos || end == at || text.find_first_of(".[()", at) < end)
        return false;
      at = end + 1;
      return true;
    }
    return kind != '\0' && std::strchr("BCDFIJSZ", kind) != nullptr;
  };
  if (text.empty() || text[at++] != '(')
    return false;
  while (at < text.size() && text[at] != ')')
    if (!fieldType())
      return false;
  if (at++ >= text.size())
    return false;
  if (at < text.size() && text[at] == 'V')
    ++at;
  else if (!fieldType())
    return false;
  return at == text.size();
}

// The bytes of the Symbol in constant pool slot `index` (a Utf8 entry).
std::optional<std::string> symbolAt(const DescriptorLayout &layout, uintptr_t pool, int64_t length,
                                    int64_t index, int64_t minBytes) {
  const DescriptorLayout &l = layout;
  // Slot 0 is never used.
  if (index <= 0 || index >= length)
    return std::nullopt;
  const auto symbol =
      load<uintptr_t>(pool + l.poolHeader + static_cast<uint64_t>(index) * l.slotSize);
  // A Symbol's strictest field is 4 bytes; HotSpot allocates them in words.
  if (!aligned(symbol, alignof(uint32_t)))
    return std::nullopt;
  const int64_t bytes = loadInteger(symbol, l.symbolLength);
  if (bytes < minBytes || bytes >= 0x10000)
    return std::nullopt;
  std::string text(static_cast<size_t>(bytes), '\0');
  std::memcpy(text.data(), reinterpret_cast<const void *>(symbol + l.symbolBody), text.size());
  return text;
}

} // namespace

// Why the reads are safe. The nmethod is a real one, alive (the caller's
// promise: during CompiledMethodLoad HotSpot keeps the nmethod it posts
// about from being unloaded or flushed): its header was validated in the
// code heap and its code begins at the address asked about. A live
// nmethod's _method is a live Method (its class cannot be unloaded while
// the nmethod is not), and each link followed from it is metadata that
// the Method keeps alive and that is set when it is created: its
// ConstMethod, that one's ConstantPool (an old method of a redefined class
// keeps its old pool while it is in use, as here), and the pool's Utf8
// Symbols (reference-counted by the pool). So with the layout read right,
// every address read is live metaspace or symbol memory. The checks before
// each read (non-null, aligned, index within the pool, a sane length) are
// for a layout read wrong; nothing bounds metaspace, so they make a stray
// read unlikely rather than impossible, and the descriptor's shape is
// checked before it is believed.
std::optional<CompiledMethodName> compiledMethodName(const DescriptorLayout &layout,
                                                     uintptr_t nmethod) {
  const DescriptorLayout &l = layout;
  constexpr uintptr_t kWord = sizeof(uintptr_t); // metaspace allocates in words
  const auto method = load<uintptr_t>(nmethod + l.method);
  if (!aligned(method, kWord))
    return std::nullopt;
  const auto constMethod = load<uintptr_t>(method + l.constMethod);
  if (!aligned(constMethod, kWord))
    return std::nullopt;
  const auto pool = load<uintptr_t>(constMethod + l.constants);
  if (!aligned(pool, kWord))
    return std::nullopt;
  const int64_t length = loadInteger(pool, l.poolLength);
  // u2 indexes reach no further than 65535.
  if (length <= 0 || length > 0x10000)
    return std::nullopt;
  std::optional<std::string> name =
      symbolAt(l, pool, length, loadInteger(constMethod, l.nameIndex), 1);
  std::optional<std::string> descriptor =
      symbolAt(l, pool, length, loadInteger(constMethod, l.signatureIndex), 3); // "()V" at least
  if (!name || !isMethodName(*name) || !descriptor || !isMethodDescriptor(*descriptor))
    return std::nullopt;
  return CompiledMethodName{std::move(*name), std::move(*descriptor)};
}

} // namespace jitsym::jvmti
