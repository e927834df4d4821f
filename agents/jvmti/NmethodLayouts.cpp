#include "NmethodLayouts.h"

namespace jitsym::jvmti {

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

} // namespace jitsym::jvmti
