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

int loadSigned(uintptr_t address, uint64_t size) {
  switch (size) {
  case 1:
    return load<int8_t>(address);
  case 2:
    return load<int16_t>(address);
  default:
    return load<int32_t>(address);
  }
}

uint64_t loadUnsigned(uintptr_t address, uint64_t size) {
  switch (size) {
  case 1:
    return load<uint8_t>(address);
  case 2:
    return load<uint16_t>(address);
  default:
    return load<uint32_t>(address);
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

  static std::optional<Table> exported(const char *array, const char *strideName,
                                       std::initializer_list<const char *> offsetNames,
                                       std::vector<std::string> &missing) {
    Table table;
    const void *arrayVariable = jvmSymbol(array);
    const void *strideVariable = jvmSymbol(strideName);
    if (!arrayVariable)
      missing.push_back(array);
    if (!strideVariable)
      missing.push_back(strideName);
    bool complete = arrayVariable && strideVariable;
    for (const char *name : offsetNames) {
      const void *variable = jvmSymbol(name);
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
  explicit VmTables(std::vector<std::string> &missing) {
    structs_ = Table::exported(
        "gHotSpotVMStructs", "gHotSpotVMStructEntryArrayStride",
        {"gHotSpotVMStructEntryTypeNameOffset", "gHotSpotVMStructEntryFieldNameOffset",
         "gHotSpotVMStructEntryTypeStringOffset", "gHotSpotVMStructEntryIsStaticOffset",
         "gHotSpotVMStructEntryOffsetOffset", "gHotSpotVMStructEntryAddressOffset"},
        missing);
    types_ = Table::exported("gHotSpotVMTypes", "gHotSpotVMTypeEntryArrayStride",
                             {"gHotSpotVMTypeEntryTypeNameOffset", "gHotSpotVMTypeEntrySizeOffset"},
                             missing);
    ints_ = Table::exported(
        "gHotSpotVMIntConstants", "gHotSpotVMIntConstantEntryArrayStride",
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

  // A non-static integer field: its offset and size (1, 2 or 4 bytes, from
  // its declared type).
  struct Integer {
    uint64_t offset = 0, size = 0;
  };
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
    const auto size = typeSize(found->type, missing);
    if (!size)
      return std::nullopt;
    if (*size != 1 && *size != 2 && *size != 4) {
      missing.push_back("a 1, 2 or 4 byte " + what);
      return std::nullopt;
    }
    return Integer{found->offset, *size};
  }

  std::optional<uint64_t> typeSize(const char *type, std::vector<std::string> &missing) const {
    const auto size = valueNamed<uint64_t>(types_, type);
    if (!size)
      missing.push_back(std::string("sizeof(") + type + ")");
    return size;
  }

  std::optional<int> intConstant(const char *name, std::vector<std::string> &missing) const {
    const auto value = valueNamed<int32_t>(ints_, name);
    if (!value)
      missing.push_back(name);
    return value;
  }

private:
  // The second column, as a T, of the entry of a two-column table (types,
  // int constants) whose first column is `name`.
  template <class T>
  static std::optional<T> valueNamed(const std::optional<Table> &table, const char *name) {
    T value{};
    if (table && table->find([&](uintptr_t entry) {
          if (!same(table->string(entry, 0), name))
            return false;
          value = load<T>(entry + table->offsets[1]);
          return true;
        }))
      return value;
    return std::nullopt;
  }

  std::optional<Table> structs_, types_, ints_;
};

// Where the fields needed live, read once from the tables; immutable after,
// so concurrent lookups share it without locking.

// To find the nmethod whose code starts at an address.
struct NmethodLayout {
  uintptr_t heapsVariable = 0;  // &CodeCache::_heaps (GrowableArray<CodeHeap*>*)
  uint64_t arrayLength = 0;     // GrowableArray _len (int)
  uint64_t arrayData = 0;       // GrowableArray _data (element pointer)
  uint64_t heapMemory = 0;      // CodeHeap::_memory (VirtualSpace)
  uint64_t heapSegmap = 0;      // CodeHeap::_segmap (VirtualSpace)
  uint64_t heapLog2Segment = 0; // CodeHeap::_log2_segment_size (int)
  uint64_t spaceLow = 0;        // VirtualSpace::_low: committed start
  uint64_t spaceHigh = 0;       // VirtualSpace::_high: committed end
  uint64_t blockHeader = 0;     // sizeof(HeapBlock): the blob follows it
  uint64_t blockLength = 0;     // HeapBlock length in segments (size_t)
  uint64_t blockUsed = 0;       // HeapBlock used flag (bool)
  uint64_t blobSize = 0;        // CodeBlob::_size (int)
  uint64_t blobHeaderSize = 0;  // CodeBlob::_header_size (int)
  uint64_t blobCodeBegin = 0;   // CodeBlob::_code_begin (address)
  uint64_t nmethodSize = 0;     // sizeof(nmethod): a smaller header is no nmethod
};

// An nmethod's tier.
struct LevelLayout {
  uint64_t compLevel = 0;         // nmethod's _comp_level
  uint64_t compLevelSize = 0;     // its size, from its declared type
  int minLevel = 0, maxLevel = 0; // CompLevel_none .. CompLevel_full_optimization
};

// An nmethod's Method's descriptor: nmethod -> Method -> ConstMethod ->
// ConstantPool slot -> Symbol.
struct DescriptorLayout {
  uint64_t method = 0;              // nmethod's _method (Method*)
  uint64_t constMethod = 0;         // Method::_constMethod (ConstMethod*)
  uint64_t constants = 0;           // ConstMethod::_constants (ConstantPool*)
  VmTables::Integer nameIndex;      // ConstMethod::_name_index (u2)
  VmTables::Integer signatureIndex; // ConstMethod::_signature_index (u2)
  VmTables::Integer poolLength;     // ConstantPool::_length (int): slot count
  uint64_t poolHeader = 0;          // sizeof(ConstantPool): the slots follow it
  uint64_t slotSize = 0;            // sizeof(intptr_t): one slot, a Symbol* for Utf8
  VmTables::Integer symbolLength;   // Symbol::_length (u2): bytes in the body
  uint64_t symbolBody = 0;          // Symbol::_body: the (modified UTF-8) bytes
};

struct Layout {
  NmethodLayout find;
  std::optional<LevelLayout> level;
  std::optional<DescriptorLayout> descriptor;
};

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
    const int level = loadSigned(*nmethod + l.compLevel, l.compLevelSize);
    if (level < l.minLevel || level > l.maxLevel)
      return std::nullopt;
    return level;
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
    const int length = loadSigned(pool + l.poolLength.offset, l.poolLength.size);
    // u2 indexes reach no further than 65535.
    if (length <= 0 || length > 0x10000)
      return std::nullopt;
    CompiledMethodName result;
    std::optional<std::string> name = symbolAt(
        pool, length, loadUnsigned(constMethod + l.nameIndex.offset, l.nameIndex.size), 1);
    std::optional<std::string> descriptor = symbolAt(
        pool, length, loadUnsigned(constMethod + l.signatureIndex.offset, l.signatureIndex.size),
        3); // "()V" at least
    if (!name || !isMethodName(*name) || !descriptor || !isMethodDescriptor(*descriptor))
      return std::nullopt;
    return CompiledMethodName{std::move(*name), std::move(*descriptor)};
  }

private:
  // The bytes of the Symbol in constant pool slot `index` (a Utf8 entry).
  std::optional<std::string> symbolAt(uintptr_t pool, int length, uint64_t index,
                                      uint64_t minBytes) const {
    const DescriptorLayout &l = *layout_.descriptor;
    // Slot 0 is never used.
    if (index == 0 || index >= static_cast<uint64_t>(length))
      return std::nullopt;
    const auto symbol = load<uintptr_t>(pool + l.poolHeader + index * l.slotSize);
    // A Symbol's strictest field is 4 bytes; HotSpot allocates them in words.
    if (!aligned(symbol, alignof(uint32_t)))
      return std::nullopt;
    const uint64_t bytes = loadUnsigned(symbol + l.symbolLength.offset, l.symbolLength.size);
    if (bytes < minBytes || bytes >= 0x10000)
      return std::nullopt;
    std::string text(bytes, '\0');
    std::memcpy(text.data(), reinterpret_cast<const void *>(symbol + l.symbolBody), bytes);
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
    const auto count = load<int32_t>(heaps + l.arrayLength);
    const auto data = load<uintptr_t>(heaps + l.arrayData);
    // HotSpot has a handful of code heaps; more means the list is not one.
    if (!data || count <= 0 || count > 64)
      return std::nullopt;
    for (int32_t i = 0; i < count; ++i) {
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
    const auto log2Segment = load<int32_t>(heap + l.heapLog2Segment);
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
    if (high - block < l.blockHeader + l.nmethodSize || load<uint8_t>(block + l.blockUsed) == 0)
      return std::nullopt;
    const auto length = load<uint64_t>(block + l.blockLength);
    if (length == 0 || length > (high - block) >> log2Segment)
      return std::nullopt;
    const uintptr_t blockEnd = block + (length << log2Segment);
    const uintptr_t blob = block + l.blockHeader;
    if (address >= blockEnd || blockEnd - blob < l.nmethodSize)
      return std::nullopt;
    // Only an nmethod has a header this large, and its code must be the code
    // asked about.
    const auto headerSize = load<int32_t>(blob + l.blobHeaderSize);
    const auto size = load<int32_t>(blob + l.blobSize);
    if (headerSize < 0 || static_cast<uint64_t>(headerSize) < l.nmethodSize || size < headerSize ||
        static_cast<uint64_t>(size) > blockEnd - blob ||
        load<uintptr_t>(blob + l.blobCodeBegin) != address)
      return std::nullopt;
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
  const auto heaps = tables.field({"CodeCache"}, "_heaps", true, missing);
  // GrowableArrayBase is JDK 15+'s name of the class that was GenericGrowableArray.
  const auto length =
      tables.field({"GrowableArrayBase", "GenericGrowableArray"}, "_len", false, missing);
  const auto data = tables.field({"GrowableArray<int>"}, "_data", false, missing);
  const auto memory = tables.field({"CodeHeap"}, "_memory", false, missing);
  const auto segmap = tables.field({"CodeHeap"}, "_segmap", false, missing);
  const auto log2Segment = tables.field({"CodeHeap"}, "_log2_segment_size", false, missing);
  const auto low = tables.field({"VirtualSpace"}, "_low", false, missing);
  const auto high = tables.field({"VirtualSpace"}, "_high", false, missing);
  const auto blockHeader = tables.typeSize("HeapBlock", missing);
  const auto header = tables.field({"HeapBlock"}, "_header", false, missing);
  const auto blockLength = tables.field({"HeapBlock::Header"}, "_length", false, missing);
  const auto blockUsed = tables.field({"HeapBlock::Header"}, "_used", false, missing);
  const auto blobSize = tables.field({"CodeBlob"}, "_size", false, missing);
  const auto blobHeaderSize = tables.field({"CodeBlob"}, "_header_size", false, missing);
  const auto blobCodeBegin = tables.field({"CodeBlob"}, "_code_begin", false, missing);
  const auto nmethodSize = tables.typeSize("nmethod", missing);
  if (!missing.empty())
    return std::nullopt;

  NmethodLayout l;
  l.heapsVariable = heaps->address;
  l.arrayLength = length->offset;
  l.arrayData = data->offset;
  l.heapMemory = memory->offset;
  l.heapSegmap = segmap->offset;
  l.heapLog2Segment = log2Segment->offset;
  l.spaceLow = low->offset;
  l.spaceHigh = high->offset;
  l.blockHeader = *blockHeader;
  l.blockLength = header->offset + blockLength->offset;
  l.blockUsed = header->offset + blockUsed->offset;
  l.blobSize = blobSize->offset;
  l.blobHeaderSize = blobHeaderSize->offset;
  l.blobCodeBegin = blobCodeBegin->offset;
  l.nmethodSize = *nmethodSize;
  // Every field read from a block must lie inside the header checked to be
  // there (a HeapBlock, then an nmethod), else the lookup could read past it.
  const bool fits = l.blockLength + sizeof(uint64_t) <= l.blockHeader &&
                    l.blockUsed + 1 <= l.blockHeader && l.blobSize + 4 <= l.nmethodSize &&
                    l.blobHeaderSize + 4 <= l.nmethodSize &&
                    l.blobCodeBegin + sizeof(uintptr_t) <= l.nmethodSize;
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
  l.compLevel = compLevel->offset;
  l.compLevelSize = compLevel->size;
  l.minLevel = *minLevel;
  l.maxLevel = *maxLevel;
  if (l.compLevel + l.compLevelSize > found.nmethodSize || l.minLevel > l.maxLevel) {
    missing.push_back("an nmethod::_comp_level understood");
    return std::nullopt;
  }
  return l;
}

std::optional<DescriptorLayout> descriptorLayout(const VmTables &tables, const NmethodLayout &found,
                                                 std::vector<std::string> &missing) {
  const auto method = tables.field({"nmethod", "CompiledMethod"}, "_method", false, missing);
  const auto constMethod = tables.field({"Method"}, "_constMethod", false, missing);
  const auto constants = tables.field({"ConstMethod"}, "_constants", false, missing);
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
  const bool fits = l.method + kPointer <= found.nmethodSize &&
                    l.constMethod + kPointer <= *methodSize &&
                    l.constants + kPointer <= *constMethodSize &&
                    l.signatureIndex.offset + l.signatureIndex.size <= *constMethodSize &&
                    l.nameIndex.offset + l.nameIndex.size <= *constMethodSize &&
                    l.poolLength.offset + l.poolLength.size <= l.poolHeader &&
                    l.symbolLength.offset + l.symbolLength.size <= l.symbolBody &&
                    l.symbolBody <= *symbolSize && l.slotSize == kPointer;
  if (!fits) {
    missing.push_back("a Method, ConstantPool or Symbol layout understood");
    return std::nullopt;
  }
  return l;
}
} // namespace

std::unique_ptr<HotSpotNmethods> HotSpotNmethods::fromThisJvm(std::string &error) {
  error.clear();
  std::vector<std::string> missing;
  const VmTables tables(missing);
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
  std::vector<std::string> noLevel, noDescriptor;
  layout.level = levelLayout(tables, layout.find, noLevel);
  layout.descriptor = descriptorLayout(tables, layout.find, noDescriptor);
  if (!noLevel.empty())
    error = listed("no tiers: this JVM's VMStructs lacks", noLevel);
  if (!noDescriptor.empty())
    error += (error.empty() ? "" : "; ") +
             listed("no descriptors: this JVM's VMStructs lacks", noDescriptor);
  return std::make_unique<VmStructsNmethods>(layout);
}

} // namespace jitsym::jvmti
