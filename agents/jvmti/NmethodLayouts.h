// Where the fields needed live in this JVM's code heap, nmethods and the
// metadata they point to, read once from the tables; immutable after, so
// concurrent lookups share it without locking. Private to the HotSpotNmethods
// files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "HotSpotMemory.h"
#include "VmTables.h"

namespace jitsym::jvmti {

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

// Each from the tables; nullopt and `missing` filled in when not known. Where
// nmethods are found is needed for every query, the others for one each.
std::optional<NmethodLayout> nmethodLayout(const VmTables &tables,
                                           std::vector<std::string> &missing);
std::optional<LevelLayout> levelLayout(const VmTables &tables, const NmethodLayout &found,
                                       std::vector<std::string> &missing);
std::optional<EntryLayout> entryLayout(const VmTables &tables, const NmethodLayout &found,
                                       std::vector<std::string> &missing);
std::optional<DescriptorLayout> descriptorLayout(const VmTables &tables, const NmethodLayout &found,
                                                 std::vector<std::string> &missing);

} // namespace jitsym::jvmti
