#include "HotSpotNmethods.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <dlfcn.h>
#include <initializer_list>
#include <link.h>
#include <vector>

namespace jitsym::jvmti {
namespace {

// HotSpot fields are read by address; memcpy because they are not our objects
// (no alignment or aliasing promises) and may be written by JVM threads.
template <class T> T load(uintptr_t address) {
  T value;
  std::memcpy(&value, reinterpret_cast<const void *>(address), sizeof value);
  return value;
}

// An integer field as its type says: 1, 2, 4 or 8 bytes, signed or not.
struct Integer {
  uint64_t offset = 0, size = 0;
  bool isUnsigned = false;
};

int64_t loadInteger(uintptr_t address, const Integer &field) {
  address += field.offset;
  switch (field.size) {
  case 1:
    return field.isUnsigned ? int64_t{load<uint8_t>(address)} : int64_t{load<int8_t>(address)};
  case 2:
    return field.isUnsigned ? int64_t{load<uint16_t>(address)} : int64_t{load<int16_t>(address)};
  case 4:
    return field.isUnsigned ? int64_t{load<uint32_t>(address)} : int64_t{load<int32_t>(address)};
  default: // an unsigned 8-byte value past INT64_MAX reads negative: out of every range checked
    return load<int64_t>(address);
  }
}

bool endsWith(const char *text, const char *suffix) {
  const size_t length = std::strlen(text), suffixLength = std::strlen(suffix);
  return length >= suffixLength && std::strcmp(text + length - suffixLength, suffix) == 0;
}

// The libjvm.so already in the process, for when its symbols are not global
// (a launcher that opened it RTLD_LOCAL). RTLD_NOLOAD: never loads another.
// The handle is kept: the tables must outlive the lookup anyway.
void *loadedLibjvm() {
  std::string path;
  dl_iterate_phdr(
      [](dl_phdr_info *info, size_t, void *data) {
        if (info->dlpi_name && endsWith(info->dlpi_name, "/libjvm.so")) {
          *static_cast<std::string *>(data) = info->dlpi_name;
          return 1;
        }
        return 0;
      },
      &path);
  return path.empty() ? nullptr : dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
}

void *jvmSymbol(const char *name) {
  if (void *found = dlsym(RTLD_DEFAULT, name))
    return found;
  static void *const libjvm = loadedLibjvm();
  return libjvm ? dlsym(libjvm, name) : nullptr;
}

// One of HotSpot's exported tables: an array of entries whose layout (field
// offsets, stride) is itself exported, ended by an entry with a null name.
struct Table {
  uintptr_t begin = 0;
  uint64_t stride = 0;
  std::vector<uint64_t> offsets; // of the entry fields asked for, in order

  // More entries than any HotSpot has: a bound should the terminator be lost.
  static constexpr size_t kMaxEntries = 1 << 16;

  static std::optional<Table> exported(const HotSpotNmethods::SymbolLookup &lookup,
                                       const char *array, const char *strideName,
                                       std::initializer_list<const char *> offsetNames,
                                       std::vector<std::string> &missing) {
    Table table;
    const void *arrayVariable = lookup(array);
    const void *strideVariable = lookup(strideName);
    if (!arrayVariable)
      missing.push_back(array);
    if (!strideVariable)
      missing.push_back(strideName);
    bool complete = arrayVariable && strideVariable;
    for (const char *name : offsetNames) {
      const void *variable = lookup(name);
      if (!variable) {
        missing.push_back(name);
        complete = false;
        continue;
      }
      table.offsets.push_back(load<uint64_t>(reinterpret_cast<uintptr_t>(variable)));
    }
    if (!complete)
      return std::nullopt;
    table.begin = load<uintptr_t>(reinterpret_cast<uintptr_t>(arrayVariable));
    table.stride = load<uint64_t>(reinterpret_cast<uintptr_t>(strideVariable));
    // Each field read is at most 8 bytes and must lie inside one entry.
    const bool sane = table.begin && table.stride > 0 && table.stride <= 4096 &&
                      std::all_of(table.offsets.begin(), table.offsets.end(),
                                  [&](uint64_t offset) { return offset + 8 <= table.stride; });
    if (!sane) {
      missing.push_back(std::string("a well-formed ") + array);
      return std::nullopt;
    }
    return table;
  }

  // Calls `visit(entry)` on each entry (the name at offsets[0] non-null) until it returns true.
  template <class Visit> bool find(Visit visit) const {
    uintptr_t entry = begin;
    for (size_t i = 0; i < kMaxEntries; ++i, entry += stride) {
      if (!load<const char *>(entry + offsets[0]))
        return false;
      if (visit(entry))
        return true;
    }
    return false;
  }

  const char *string(uintptr_t entry, size_t field) const {
    return load<const char *>(entry + offsets[field]);
  }
};

bool same(const char *a, const char *b) { return a && b && std::strcmp(a, b) == 0; }

// gHotSpotVMStructs, gHotSpotVMTypes and gHotSpotVMIntConstants, looked up by
// name; each name asked for and not found goes to the `missing` of the ask.
class VmTables {
public:
  VmTables(const HotSpotNmethods::SymbolLookup &lookup, std::vector<std::string> &missing) {
    structs_ = Table::exported(
        lookup, "gHotSpotVMStructs", "gHotSpotVMStructEntryArrayStride",
        {"gHotSpotVMStructEntryTypeNameOffset", "gHotSpotVMStructEntryFieldNameOffset",
         "gHotSpotVMStructEntryTypeStringOffset", "gHotSpotVMStructEntryIsStaticOffset",
         "gHotSpotVMStructEntryOffsetOffset", "gHotSpotVMStructEntryAddressOffset"},
        missing);
    types_ = Table::exported(lookup, "gHotSpotVMTypes", "gHotSpotVMTypeEntryArrayStride",
                             {"gHotSpotVMTypeEntryTypeNameOffset", "gHotSpotVMTypeEntrySizeOffset",
                              "gHotSpotVMTypeEntryIsIntegerTypeOffset",
                              "gHotSpotVMTypeEntryIsUnsignedOffset"},
                             missing);
    ints_ = Table::exported(
        lookup, "gHotSpotVMIntConstants", "gHotSpotVMIntConstantEntryArrayStride",
        {"gHotSpotVMIntConstantEntryNameOffset", "gHotSpotVMIntConstantEntryValueOffset"}, missing);
  }

  bool complete() const { return structs_ && types_ && ints_; }

  // The first of `types` that declares `field`: its offset (or address, for
  // a static field) and type name.
  struct Field {
    uint64_t offset = 0;
    uintptr_t address = 0;
    const char *type = nullptr;
  };
  std::optional<Field> field(std::initializer_list<const char *> types, const char *field,
                             bool isStatic, std::vector<std::string> &missing) const {
    if (structs_)
      for (const char *type : types) {
        Field found;
        if (structs_->find([&](uintptr_t entry) {
              if (!same(structs_->string(entry, 0), type) ||
                  !same(structs_->string(entry, 1), field) ||
                  (load<int32_t>(entry + structs_->offsets[3]) != 0) != isStatic)
                return false;
              found.type = structs_->string(entry, 2);
              found.offset = load<uint64_t>(entry + structs_->offsets[4]);
              found.address = load<uintptr_t>(entry + structs_->offsets[5]);
              return true;
            }))
          if (!isStatic || found.address)
            return found;
      }
    missing.push_back(std::string(*types.begin()) + "::" + field);
    return std::nullopt;
  }

  // Whether one of `types` declares the non-static `name`; nothing missing if not.
  bool has(std::initializer_list<const char *> types, const char *name) const {
    std::vector<std::string> ignored;
    return field(types, name, false, ignored).has_value();
  }

  // A field whose declared type is `type`: a struct embedded, say.
  std::optional<Field> fieldOfType(std::initializer_list<const char *> types, const char *name,
                                   const char *type, std::vector<std::string> &missing) const {
    auto found = field(types, name, false, missing);
    if (found && !same(found->type, type)) {
      missing.push_back(std::string(*types.begin()) + "::" + name + " of type " + type);
      return std::nullopt;
    }
    return found;
  }

  // A field declared a pointer: T* or HotSpot's `address`. A field that
  // became an integer offset (CodeBlob::_code_begin did) is not read as one.
  std::optional<Field> pointerField(std::initializer_list<const char *> types, const char *name,
                                    bool isStatic, std::vector<std::string> &missing) const {
    auto found = field(types, name, isStatic, missing);
    if (found && !isPointerType(found->type)) {
      missing.push_back("a pointer " + std::string(*types.begin()) + "::" + name);
      return std::nullopt;
    }
    return found;
  }

  // A non-static field of an integer type (gHotSpotVMTypes says which, its
  // size and its signedness): 1, 2, 4 or 8 bytes.
  std::optional<Integer> integerField(std::initializer_list<const char *> types, const char *name,
                                      std::vector<std::string> &missing) const {
    const auto found = field(types, name, false, missing);
    if (!found)
      return std::nullopt;
    const std::string what = std::string(*types.begin()) + "::" + name;
    if (!found->type) {
      missing.push_back("the type of " + what);
      return std::nullopt;
    }
    const auto type = typeNamed(found->type);
    if (!type) {
      missing.push_back(std::string("the type ") + found->type + " of " + what);
      return std::nullopt;
    }
    if (!type->isInteger ||
        (type->size != 1 && type->size != 2 && type->size != 4 && type->size != 8)) {
      missing.push_back("an integer " + what);
      return std::nullopt;
    }
    return Integer{found->offset, type->size, type->isUnsigned};
  }

  std::optional<uint64_t> typeSize(const char *name, std::vector<std::string> &missing) const {
    const auto type = typeNamed(name);
    if (!type) {
      missing.push_back(std::string("sizeof(") + name + ")");
      return std::nullopt;
    }
    return type->size;
  }

  std::optional<int> intConstant(const char *name, std::vector<std::string> &missing) const {
    int32_t value = 0;
    if (ints_ && ints_->find([&](uintptr_t entry) {
          if (!same(ints_->string(entry, 0), name))
            return false;
          value = load<int32_t>(entry + ints_->offsets[1]);
          return true;
        }))
      return value;
    missing.push_back(name);
    return std::nullopt;
  }

private:
  static bool isPointerType(const char *type) {
    return type && (same(type, "address") || (*type && type[std::strlen(type) - 1] == '*'));
  }

  struct Type {
    uint64_t size = 0;
    bool isInteger = false, isUnsigned = false;
  };
  std::optional<Type> typeNamed(const char *name) const {
    Type type;
    if (types_ && types_->find([&](uintptr_t entry) {
          if (!same(types_->string(entry, 0), name))
            return false;
          type.size = load<uint64_t>(entry + types_->offsets[1]);
          type.isInteger = load<int32_t>(entry + types_->offsets[2]) != 0;
          type.isUnsigned = load<int32_t>(entry + types_->offsets[3]) != 0;
          return true;
        }))
      return type;
    return std::nullopt;
  }

  std::optional<Table> structs_, types_, ints_;
};

// Where the fields needed live, read once from the tables; immutable after,
// so concurrent lookups share it without locking.

// To find the nmethod whose code starts at an address.
struct NmethodLayout {
  uintptr_t heapsVariable = 0; // &CodeCache::_heaps (GrowableArray<CodeHeap*>*)
  Integer arrayLength;         // GrowableArray _len
  uint64_t arrayData = 0;      // GrowableArray _data (element pointer)
  uint64_t heapMemory = 0;     // CodeHeap::_memory (VirtualSpace)
  uint64_t heapSegmap = 0;     // CodeHeap::_segmap (VirtualSpace)
  Integer heapLog2Segment;     // CodeHeap::_log2_segment_size
  uint64_t spaceLow = 0;       // VirtualSpace::_low: committed start
  uint64_t spaceHigh = 0;      // VirtualSpace::_high: committed end
  uint64_t blockHeader = 0;    // sizeof(HeapBlock): the blob follows it
  Integer blockLength;         // HeapBlock length in segments (size_t; JDK 25: uint32_t)
  Integer blockUsed;           // HeapBlock used flag (bool)
  Integer blobSize;            // CodeBlob::_size
  Integer blobHeaderSize;      // CodeBlob::_header_size (int; JDK 25: u2)
  // Where the code begins: the address in CodeBlob::_code_begin (JDK 17, 21),
  // or the blob plus CodeBlob::_code_offset (JDK 25).
  std::optional<uint64_t> blobCodeBegin;
  Integer blobCodeOffset;
  // CodeBlob::_kind and the value of an nmethod's (JDK 25): checked where known.
  std::optional<Integer> blobKind;
  int64_t nmethodKind = 0;
  uint64_t nmethodSize = 0; // sizeof(nmethod): a smaller header is no nmethod
};

// An nmethod's tier.
struct LevelLayout {
  Integer compLevel;              // nmethod's _comp_level (int; JDK 25: CompLevel, 1 byte)
  int minLevel = 0, maxLevel = 0; // CompLevel_none .. CompLevel_full_optimization
};

// An nmethod's Method's descriptor: nmethod -> Method -> ConstMethod ->
// ConstantPool slot -> Symbol.
struct DescriptorLayout {
  uint64_t method = 0;      // nmethod's _method (Method*)
  uint64_t constMethod = 0; // Method::_constMethod (ConstMethod*)
  uint64_t constants = 0;   // ConstMethod::_constants (ConstantPool*)
  Integer nameIndex;        // ConstMethod::_name_index (u2)
  Integer signatureIndex;   // ConstMethod::_signature_index (u2)
  Integer poolLength;       // ConstantPool::_length (int): slot count
  uint64_t poolHeader = 0;  // sizeof(ConstantPool): the slots follow it
  uint64_t slotSize = 0;    // sizeof(intptr_t): one slot, a Symbol* for Utf8
  Integer symbolLength;     // Symbol::_length (u2): bytes in the body
  uint64_t symbolBody = 0;  // Symbol::_body: the (modified UTF-8) bytes
};

// An nmethod's verified entry point: the address in nmethod's
// _verified_entry_point (JDK 17, 21) or the code begin plus its
// _verified_entry_offset (JDK 25).
struct EntryLayout {
  std::optional<uint64_t> pointer;
  Integer offset;
};

struct Layout {
  NmethodLayout find;
  std::optional<EntryLayout> entry;
  std::optional<LevelLayout> level;
  std::optional<DescriptorLayout> descriptor;
};

bool aligned(uintptr_t address, uintptr_t alignment) {
  return address != 0 && address % alignment == 0;
}

// The field lies inside an object of `size` bytes.
bool inside(const Integer &field, uint64_t size) { return field.offset + field.size <= size; }

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

class VmStructsNmethods final : public HotSpotNmethods {
public:
  explicit VmStructsNmethods(const Layout &layout) : layout_(layout) {}

  std::optional<int> levelOf(const void *codeBegin) const override {
    if (!layout_.level)
      return std::nullopt;
    const std::optional<uintptr_t> nmethod = nmethodAt(reinterpret_cast<uintptr_t>(codeBegin));
    if (!nmethod)
      return std::nullopt;
    const LevelLayout &l = *layout_.level;
    const int64_t level = loadInteger(*nmethod, l.compLevel);
    if (level < l.minLevel || level > l.maxLevel)
      return std::nullopt;
    return static_cast<int>(level);
  }

  std::optional<uint64_t> verifiedEntryOf(const void *codeBegin) const override {
    if (!layout_.entry)
      return std::nullopt;
    const auto begin = reinterpret_cast<uintptr_t>(codeBegin);
    const std::optional<uintptr_t> nmethod = nmethodAt(begin);
    if (!nmethod)
      return std::nullopt;
    uintptr_t entry = 0;
    if (layout_.entry->pointer) {
      entry = load<uintptr_t>(*nmethod + *layout_.entry->pointer);
    } else {
      const int64_t offset = loadInteger(*nmethod, layout_.entry->offset);
      if (offset <= 0)
        return std::nullopt;
      entry = begin + static_cast<uint64_t>(offset);
    }
    // Inside the blob (nmethodAt checked its size against its heap block).
    const int64_t size = loadInteger(*nmethod, layout_.find.blobSize);
    if (entry <= begin || entry >= *nmethod + static_cast<uint64_t>(size))
      return std::nullopt;
    return entry;
  }

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
  std::optional<CompiledMethodName> methodOf(const void *codeBegin) const override {
    if (!layout_.descriptor)
      return std::nullopt;
    const std::optional<uintptr_t> nmethod = nmethodAt(reinterpret_cast<uintptr_t>(codeBegin));
    if (!nmethod)
      return std::nullopt;
    const DescriptorLayout &l = *layout_.descriptor;
    constexpr uintptr_t kWord = sizeof(uintptr_t); // metaspace allocates in words
    const auto method = load<uintptr_t>(*nmethod + l.method);
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
        symbolAt(pool, length, loadInteger(constMethod, l.nameIndex), 1);
    std::optional<std::string> descriptor =
        symbolAt(pool, length, loadInteger(constMethod, l.signatureIndex), 3); // "()V" at least
    if (!name || !isMethodName(*name) || !descriptor || !isMethodDescriptor(*descriptor))
      return std::nullopt;
    return CompiledMethodName{std::move(*name), std::move(*descriptor)};
  }

private:
  // The bytes of the Symbol in constant pool slot `index` (a Utf8 entry).
  std::optional<std::string> symbolAt(uintptr_t pool, int64_t length, int64_t index,
                                      int64_t minBytes) const {
    const DescriptorLayout &l = *layout_.descriptor;
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

  // The nmethod (its CodeBlob header) whose code begins at `address`. Reads
  // only the code heap.
  std::optional<uintptr_t> nmethodAt(uintptr_t address) const {
    // Read at each lookup: the list is filled in during VM start, possibly
    // after the agent was created.
    const NmethodLayout &l = layout_.find;
    const auto heaps = load<uintptr_t>(l.heapsVariable);
    if (!heaps)
      return std::nullopt;
    const int64_t count = loadInteger(heaps, l.arrayLength);
    const auto data = load<uintptr_t>(heaps + l.arrayData);
    // HotSpot has a handful of code heaps; more means the list is not one.
    if (!data || count <= 0 || count > 64)
      return std::nullopt;
    for (int64_t i = 0; i < count; ++i) {
      const auto heap = load<uintptr_t>(data + static_cast<uintptr_t>(i) * sizeof(uintptr_t));
      if (!heap)
        continue;
      const auto low = load<uintptr_t>(heap + l.heapMemory + l.spaceLow);
      const auto high = load<uintptr_t>(heap + l.heapMemory + l.spaceHigh);
      if (low <= address && address < high)
        return nmethodInHeap(heap, low, high, address);
    }
    return std::nullopt;
  }

  // `address` lies in this heap's committed memory [low, high).
  std::optional<uintptr_t> nmethodInHeap(uintptr_t heap, uintptr_t low, uintptr_t high,
                                         uintptr_t address) const {
    const NmethodLayout &l = layout_.find;
    const int64_t log2Segment = loadInteger(heap, l.heapLog2Segment);
    if (log2Segment <= 0 || log2Segment > 30)
      return std::nullopt;
    const auto mapLow = load<uintptr_t>(heap + l.heapSegmap + l.spaceLow);
    const auto mapHigh = load<uintptr_t>(heap + l.heapSegmap + l.spaceHigh);
    if (!mapLow || mapHigh <= mapLow)
      return std::nullopt;
    // Only segments both committed and mapped can be looked at.
    const uintptr_t segments = std::min((high - low) >> log2Segment, mapHigh - mapLow);
    uintptr_t segment = (address - low) >> log2Segment;
    if (segment >= segments)
      return std::nullopt;
    // Segment map: 0xff marks a free segment, 0 a block's first segment, any
    // other value how many segments to step back towards it. Each step goes
    // back at least one segment, so the walk ends.
    constexpr uint8_t kFree = 0xff;
    for (auto hop = load<uint8_t>(mapLow + segment); hop != 0;
         hop = load<uint8_t>(mapLow + segment)) {
      if (hop == kFree || hop > segment)
        return std::nullopt;
      segment -= hop;
    }
    const uintptr_t block = low + (segment << log2Segment);
    if (high - block < l.blockHeader + l.nmethodSize || loadInteger(block, l.blockUsed) == 0)
      return std::nullopt;
    const int64_t length = loadInteger(block, l.blockLength);
    if (length <= 0 || static_cast<uint64_t>(length) > (high - block) >> log2Segment)
      return std::nullopt;
    const uintptr_t blockEnd = block + (static_cast<uint64_t>(length) << log2Segment);
    const uintptr_t blob = block + l.blockHeader;
    if (address >= blockEnd || blockEnd - blob < l.nmethodSize)
      return std::nullopt;
    // Only an nmethod has a header this large (and, where blobs say, is of
    // the nmethod kind), and its code must be the code asked about.
    const int64_t headerSize = loadInteger(blob, l.blobHeaderSize);
    const int64_t size = loadInteger(blob, l.blobSize);
    if (headerSize < 0 || static_cast<uint64_t>(headerSize) < l.nmethodSize || size < headerSize ||
        static_cast<uint64_t>(size) > blockEnd - blob)
      return std::nullopt;
    if (l.blobKind && loadInteger(blob, *l.blobKind) != l.nmethodKind)
      return std::nullopt;
    if (l.blobCodeBegin) {
      if (load<uintptr_t>(blob + *l.blobCodeBegin) != address)
        return std::nullopt;
    } else {
      const int64_t codeOffset = loadInteger(blob, l.blobCodeOffset);
      if (codeOffset < headerSize || codeOffset > size ||
          blob + static_cast<uint64_t>(codeOffset) != address)
        return std::nullopt;
    }
    return blob;
  }

  const Layout layout_;
};

std::string listed(const char *what, const std::vector<std::string> &items) {
  std::string text = what;
  for (size_t i = 0; i < items.size(); ++i)
    text += (i ? ", " : " ") + items[i];
  return text;
}

// Where nmethods are found; nullopt and `missing` filled in when not known.
std::optional<NmethodLayout> nmethodLayout(const VmTables &tables,
                                           std::vector<std::string> &missing) {
  const auto heaps = tables.pointerField({"CodeCache"}, "_heaps", true, missing);
  // GrowableArrayBase is JDK 15+'s name of the class that was GenericGrowableArray.
  const auto length =
      tables.integerField({"GrowableArrayBase", "GenericGrowableArray"}, "_len", missing);
  const auto data = tables.pointerField({"GrowableArray<int>"}, "_data", false, missing);
  const auto memory = tables.fieldOfType({"CodeHeap"}, "_memory", "VirtualSpace", missing);
  const auto segmap = tables.fieldOfType({"CodeHeap"}, "_segmap", "VirtualSpace", missing);
  const auto log2Segment = tables.integerField({"CodeHeap"}, "_log2_segment_size", missing);
  const auto low = tables.pointerField({"VirtualSpace"}, "_low", false, missing);
  const auto high = tables.pointerField({"VirtualSpace"}, "_high", false, missing);
  const auto blockHeader = tables.typeSize("HeapBlock", missing);
  const auto header = tables.fieldOfType({"HeapBlock"}, "_header", "HeapBlock::Header", missing);
  const auto blockLength = tables.integerField({"HeapBlock::Header"}, "_length", missing);
  const auto blockUsed = tables.integerField({"HeapBlock::Header"}, "_used", missing);
  const auto blobSize = tables.integerField({"CodeBlob"}, "_size", missing);
  const auto blobHeaderSize = tables.integerField({"CodeBlob"}, "_header_size", missing);
  // JDK 17 and 21's blob holds where its code begins; JDK 25's (since JDK 23's
  // JDK-8329332 and JDK-8329433) its offset from the blob, and its kind.
  std::optional<VmTables::Field> blobCodeBegin;
  std::optional<Integer> blobCodeOffset, blobKind;
  std::optional<int> nmethodKind;
  if (tables.has({"CodeBlob"}, "_code_begin"))
    blobCodeBegin = tables.pointerField({"CodeBlob"}, "_code_begin", false, missing);
  else
    blobCodeOffset = tables.integerField({"CodeBlob"}, "_code_offset", missing);
  if (tables.has({"CodeBlob"}, "_kind")) {
    blobKind = tables.integerField({"CodeBlob"}, "_kind", missing);
    nmethodKind = tables.intConstant("CodeBlobKind::Nmethod", missing);
  }
  const auto nmethodSize = tables.typeSize("nmethod", missing);
  if (!missing.empty())
    return std::nullopt;

  NmethodLayout l;
  l.heapsVariable = heaps->address;
  l.arrayLength = *length;
  l.arrayData = data->offset;
  l.heapMemory = memory->offset;
  l.heapSegmap = segmap->offset;
  l.heapLog2Segment = *log2Segment;
  l.spaceLow = low->offset;
  l.spaceHigh = high->offset;
  l.blockHeader = *blockHeader;
  l.blockLength = *blockLength;
  l.blockLength.offset += header->offset;
  l.blockUsed = *blockUsed;
  l.blockUsed.offset += header->offset;
  l.blobSize = *blobSize;
  l.blobHeaderSize = *blobHeaderSize;
  if (blobCodeBegin)
    l.blobCodeBegin = blobCodeBegin->offset;
  else
    l.blobCodeOffset = *blobCodeOffset;
  l.blobKind = blobKind;
  l.nmethodKind = nmethodKind.value_or(0);
  l.nmethodSize = *nmethodSize;
  // Every field read from a block must lie inside the header checked to be
  // there (a HeapBlock, then an nmethod), else the lookup could read past it.
  const bool fits = inside(l.blockLength, l.blockHeader) && inside(l.blockUsed, l.blockHeader) &&
                    inside(l.blobSize, l.nmethodSize) && inside(l.blobHeaderSize, l.nmethodSize) &&
                    (l.blobCodeBegin ? *l.blobCodeBegin + sizeof(uintptr_t) <= l.nmethodSize
                                     : inside(l.blobCodeOffset, l.nmethodSize)) &&
                    (!l.blobKind || inside(*l.blobKind, l.nmethodSize));
  if (!fits) {
    missing.push_back("a code heap layout understood");
    return std::nullopt;
  }
  return l;
}

std::optional<LevelLayout> levelLayout(const VmTables &tables, const NmethodLayout &found,
                                       std::vector<std::string> &missing) {
  const auto compLevel = tables.integerField({"nmethod", "CompiledMethod"}, "_comp_level", missing);
  const auto minLevel = tables.intConstant("CompLevel_none", missing);
  const auto maxLevel = tables.intConstant("CompLevel_full_optimization", missing);
  if (!missing.empty())
    return std::nullopt;
  LevelLayout l;
  l.compLevel = *compLevel;
  l.minLevel = *minLevel;
  l.maxLevel = *maxLevel;
  if (!inside(l.compLevel, found.nmethodSize) || l.minLevel > l.maxLevel) {
    missing.push_back("an nmethod::_comp_level understood");
    return std::nullopt;
  }
  return l;
}

std::optional<EntryLayout> entryLayout(const VmTables &tables, const NmethodLayout &found,
                                       std::vector<std::string> &missing) {
  EntryLayout l;
  if (tables.has({"nmethod"}, "_verified_entry_point")) {
    const auto pointer = tables.pointerField({"nmethod"}, "_verified_entry_point", false, missing);
    if (!pointer)
      return std::nullopt;
    l.pointer = pointer->offset;
    if (*l.pointer + sizeof(uintptr_t) > found.nmethodSize) {
      missing.push_back("an nmethod::_verified_entry_point understood");
      return std::nullopt;
    }
    return l;
  }
  const auto offset = tables.integerField({"nmethod"}, "_verified_entry_offset", missing);
  if (!offset)
    return std::nullopt;
  l.offset = *offset;
  if (!inside(l.offset, found.nmethodSize)) {
    missing.push_back("an nmethod::_verified_entry_offset understood");
    return std::nullopt;
  }
  return l;
}

std::optional<DescriptorLayout> descriptorLayout(const VmTables &tables, const NmethodLayout &found,
                                                 std::vector<std::string> &missing) {
  const auto method = tables.pointerField({"nmethod", "CompiledMethod"}, "_method", false, missing);
  const auto constMethod = tables.pointerField({"Method"}, "_constMethod", false, missing);
  const auto constants = tables.pointerField({"ConstMethod"}, "_constants", false, missing);
  const auto nameIndex = tables.integerField({"ConstMethod"}, "_name_index", missing);
  const auto signatureIndex = tables.integerField({"ConstMethod"}, "_signature_index", missing);
  const auto poolLength = tables.integerField({"ConstantPool"}, "_length", missing);
  const auto symbolLength = tables.integerField({"Symbol"}, "_length", missing);
  const auto symbolBody = tables.field({"Symbol"}, "_body", false, missing);
  const auto methodSize = tables.typeSize("Method", missing);
  const auto constMethodSize = tables.typeSize("ConstMethod", missing);
  const auto poolSize = tables.typeSize("ConstantPool", missing);
  const auto symbolSize = tables.typeSize("Symbol", missing);
  const auto slotSize = tables.typeSize("intptr_t", missing);
  if (!missing.empty())
    return std::nullopt;
  DescriptorLayout l;
  l.method = method->offset;
  l.constMethod = constMethod->offset;
  l.constants = constants->offset;
  l.nameIndex = *nameIndex;
  l.signatureIndex = *signatureIndex;
  l.poolLength = *poolLength;
  l.poolHeader = *poolSize;
  l.slotSize = *slotSize;
  l.symbolLength = *symbolLength;
  l.symbolBody = symbolBody->offset;
  // Each field inside the object its type says it is in; the body after the
  // length; a slot one pointer.
  constexpr uint64_t kPointer = sizeof(uintptr_t);
  const bool fits =
      l.method + kPointer <= found.nmethodSize && l.constMethod + kPointer <= *methodSize &&
      l.constants + kPointer <= *constMethodSize && inside(l.signatureIndex, *constMethodSize) &&
      inside(l.nameIndex, *constMethodSize) && inside(l.poolLength, l.poolHeader) &&
      inside(l.symbolLength, l.symbolBody) && l.symbolBody <= *symbolSize && l.slotSize == kPointer;
  if (!fits) {
    missing.push_back("a Method, ConstantPool or Symbol layout understood");
    return std::nullopt;
  }
  return l;
}
} // namespace

std::unique_ptr<HotSpotNmethods> HotSpotNmethods::fromThisJvm(std::string &error) {
  return fromSymbols(jvmSymbol, error);
}

std::unique_ptr<HotSpotNmethods> HotSpotNmethods::fromSymbols(const SymbolLookup &lookup,
                                                              std::string &error) {
  error.clear();
  std::vector<std::string> missing;
  const VmTables tables(lookup, missing);
  if (!tables.complete()) {
    error = listed("libjvm.so does not export", missing);
    return nullptr;
  }
  Layout layout;
  if (auto found = nmethodLayout(tables, missing))
    layout.find = *found;
  else {
    error = listed("this JVM's VMStructs lacks", missing);
    return nullptr;
  }
  // The optional parts: what they lack is said, and only their queries fail.
  std::vector<std::string> noLevel, noDescriptor, noEntry;
  layout.entry = entryLayout(tables, layout.find, noEntry);
  layout.level = levelLayout(tables, layout.find, noLevel);
  layout.descriptor = descriptorLayout(tables, layout.find, noDescriptor);
  if (!noLevel.empty())
    error = listed("no tiers: this JVM's VMStructs lacks", noLevel);
  if (!noDescriptor.empty())
    error += (error.empty() ? "" : "; ") +
             listed("no descriptors: this JVM's VMStructs lacks", noDescriptor);
  if (!noEntry.empty())
    error += (error.empty() ? "" : "; ") +
             listed("no entry points: this JVM's VMStructs lacks", noEntry);
  return std::make_unique<VmStructsNmethods>(layout);
}

} // namespace jitsym::jvmti
