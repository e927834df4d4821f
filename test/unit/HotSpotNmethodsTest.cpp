// HotSpotNmethods against stand-ins for a JVM: HotSpot's exported VMStructs
// tables, a code heap with its segment map and one nmethod, and its Method's
// metadata, laid out as the tables say. Two JDKs' tables, as the live JVMs
// export them (the entries read, with their offsets and declared types):
// JDK 17's CodeBlob holds the address of its code (_code_begin) and an int
// _header_size, its HeapBlock an 8-byte length; JDK 25's holds an int
// _code_offset from the blob, a u2 _header_size and a _kind, its HeapBlock a
// 4-byte length, its _comp_level is 1 byte. Both must name the intrinsic and
// its tier; tables with something not understood must yield nothing, and no
// read outside the stand-ins (the sanitized build checks that).
#include "HotSpotNmethods.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace jitsym::jvmti;

namespace {

// HotSpot's entry layouts (runtime/vmStructs.hpp); the agent reads them
// through the exported offsets, never through these declarations.
struct StructEntry {
  const char *typeName, *fieldName, *typeString;
  int32_t isStatic;
  uint64_t offset;
  void *address;
};
struct TypeEntry {
  const char *typeName, *superclassName;
  int32_t isOopType, isIntegerType, isUnsigned;
  uint64_t size;
};
struct IntConstantEntry {
  const char *name;
  int32_t value;
};

struct Field {
  const char *type, *name, *typeString;
  uint64_t offset;
};
struct Type {
  const char *name;
  uint64_t size;
  bool isInteger, isUnsigned;
};
struct Version {
  std::vector<Field> fields; // non-static; CodeCache::_heaps is added
  std::vector<Type> types;
  std::vector<std::pair<const char *, int32_t>> constants;
};

// What both versions share (the same in 17.0.15 and 25.0.3).
const std::vector<Field> kCommonFields = {
    {"GrowableArrayBase", "_len", "int", 0},
    {"GrowableArray<int>", "_data", "int*", 8},
    {"VirtualSpace", "_low", "char*", 16},
    {"VirtualSpace", "_high", "char*", 24},
    {"HeapBlock", "_header", "HeapBlock::Header", 0},
    {"Method", "_constMethod", "ConstMethod*", 8},
    {"ConstMethod", "_constants", "ConstantPool*", 8},
    {"ConstantPool", "_length", "int", 60},
    {"Symbol", "_length", "u2", 4},
    {"Symbol", "_body", nullptr, 6},
};
const std::vector<Type> kCommonTypes = {
    {"int", 4, true, false},      {"u2", 2, true, true},
    {"bool", 1, true, false},     {"size_t", 8, true, true},
    {"uint32_t", 4, true, true},  {"intptr_t", 8, true, false},
    {"address", 8, false, false}, {"ConstantPool", 72, false, false},
    {"Method", 88, false, false}, {"Symbol", 8, false, false},
};
const std::vector<std::pair<const char *, int32_t>> kCommonConstants = {
    {"CompLevel_none", 0}, {"CompLevel_full_optimization", 4}};

template <class T> std::vector<T> plus(std::vector<T> a, const std::vector<T> &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// OpenJDK 17.0.15 (Debian).
Version jdk17() {
  return {plus(kCommonFields, {{"CodeHeap", "_memory", "VirtualSpace", 8},
                               {"CodeHeap", "_segmap", "VirtualSpace", 120},
                               {"CodeHeap", "_log2_segment_size", "int", 256},
                               {"HeapBlock::Header", "_length", "size_t", 0},
                               {"HeapBlock::Header", "_used", "bool", 8},
                               {"CodeBlob", "_size", "int", 12},
                               {"CodeBlob", "_header_size", "int", 16},
                               {"CodeBlob", "_code_begin", "address", 32},
                               {"CompiledMethod", "_method", "Method*", 112},
                               {"nmethod", "_comp_level", "int", 308},
                               {"nmethod", "_verified_entry_point", "address", 224},
                               {"ConstMethod", "_name_index", "u2", 34},
                               {"ConstMethod", "_signature_index", "u2", 36}}),
          plus(kCommonTypes, {{"HeapBlock", 16, false, false},
                              {"CodeBlob", 104, false, false},
                              {"nmethod", 352, false, false},
                              {"ConstMethod", 48, false, false}}),
          kCommonConstants};
}

// Temurin 25.0.3.
Version jdk25() {
  return {plus(kCommonFields, {{"CodeHeap", "_memory", "VirtualSpace", 0},
                               {"CodeHeap", "_segmap", "VirtualSpace", 112},
                               {"CodeHeap", "_log2_segment_size", "int", 248},
                               {"HeapBlock::Header", "_length", "uint32_t", 0},
                               {"HeapBlock::Header", "_used", "bool", 4},
                               {"CodeBlob", "_size", "int", 24},
                               {"CodeBlob", "_kind", "CodeBlobKind", 56},
                               {"CodeBlob", "_header_size", "u2", 52},
                               {"CodeBlob", "_code_offset", "int", 36},
                               {"nmethod", "_method", "Method*", 80},
                               {"nmethod", "_comp_level", "CompLevel", 216},
                               {"nmethod", "_verified_entry_offset", "u2", 154},
                               {"ConstMethod", "_name_index", "u2", 36},
                               {"ConstMethod", "_signature_index", "u2", 38}}),
          plus(kCommonTypes, {{"HeapBlock", 8, false, false},
                              {"CodeBlob", 64, false, false},
                              {"nmethod", 224, false, false},
                              {"ConstMethod", 56, false, false},
                              {"CompLevel", 1, true, false},
                              {"CodeBlobKind", 1, true, false}}),
          plus(kCommonConstants, {{"CodeBlobKind::Nmethod", 1}, {"CodeBlobKind::Buffer", 2}})};
}

constexpr uint64_t kLog2Segment = 7, kSegment = 1 << kLog2Segment;
constexpr uint64_t kFirstSegment = 4, kBlockSegments = 8;
constexpr uint64_t kCodeAfterHeader = 32; // the constants section, say
constexpr uint64_t kFill = 0xa5a5a5a5a5a5a5a5;
constexpr uint64_t kVerifiedEntry = 32; // C2's, after a virtual method's inline-cache check

// A JVM's exported tables for `version`, and the objects they describe: one
// code heap, one nmethod of MethodHandle.linkToSpecial(Object, long,
// MemberName) at tier 4, and its metadata.
class FakeJvm {
public:
  explicit FakeJvm(Version version) : version_(std::move(version)) {}

  // Lays out the tables and objects; call after changing version().
  void build() {
    structs_.clear();
    for (const Field &f : version_.fields)
      structs_.push_back({f.type, f.name, f.typeString, 0, f.offset, nullptr});
    structs_.push_back({"CodeCache", "_heaps", "GrowableArray<CodeHeap*>*", 1, 0, &heapsVariable_});
    structs_.push_back({});
    types_.clear();
    for (const Type &t : version_.types)
      types_.push_back({t.name, nullptr, 0, t.isInteger, t.isUnsigned, t.size});
    types_.push_back({});
    constants_.clear();
    for (const auto &[name, value] : version_.constants)
      constants_.push_back({name, value});
    constants_.push_back({});
    structsVariable_ = structs_.data();
    typesVariable_ = types_.data();
    constantsVariable_ = constants_.data();

    // Every byte no field covers is not zero, as in a JVM (a field read
    // wider than declared reads its neighbours).
    for (auto *object :
         {&code_, &heap_, &array_, &method_, &constMethod_, &pool_, &symbols_[0], &symbols_[1]})
      std::fill(object->begin(), object->end(), kFill);
    std::fill(segmap_.begin(), segmap_.end(), 0xff);
    segmap_[kFirstSegment] = 0;
    for (uint64_t i = 1; i < kBlockSegments; ++i)
      segmap_[kFirstSegment + i] = static_cast<uint8_t>(i);
    const uintptr_t block = address(code_) + kFirstSegment * kSegment;
    set(block, "HeapBlock::Header", "_length", kBlockSegments);
    set(block, "HeapBlock::Header", "_used", 1);
    blob_ = block + size("HeapBlock");
    const uint64_t header = size("nmethod");
    code = blob_ + header + kCodeAfterHeader;
    set(blob_, "CodeBlob", "_size", kBlockSegments * kSegment - size("HeapBlock"));
    set(blob_, "CodeBlob", "_header_size", header);
    if (has("CodeBlob", "_code_begin"))
      set(blob_, "CodeBlob", "_code_begin", code);
    if (has("CodeBlob", "_code_offset"))
      set(blob_, "CodeBlob", "_code_offset", header + kCodeAfterHeader);
    if (has("CodeBlob", "_kind"))
      set(blob_, "CodeBlob", "_kind", 1);
    setNmethod("_method", address(method_));
    setNmethod("_comp_level", 4);
    if (has("nmethod", "_verified_entry_point"))
      setNmethod("_verified_entry_point", code + kVerifiedEntry);
    else if (has("nmethod", "_verified_entry_offset"))
      setNmethod("_verified_entry_offset", kVerifiedEntry);

    const uintptr_t heap = address(heap_);
    set(heap + offset("CodeHeap", "_memory"), "VirtualSpace", "_low", address(code_));
    set(heap + offset("CodeHeap", "_memory"), "VirtualSpace", "_high",
        address(code_) + code_.size() * sizeof(uint64_t));
    set(heap + offset("CodeHeap", "_segmap"), "VirtualSpace", "_low", address(segmap_));
    set(heap + offset("CodeHeap", "_segmap"), "VirtualSpace", "_high",
        address(segmap_) + segmap_.size());
    set(heap, "CodeHeap", "_log2_segment_size", kLog2Segment);
    heapList_ = {heap};
    set(address(array_), "GrowableArrayBase", "_len", 1);
    set(address(array_), "GrowableArray<int>", "_data", address(heapList_));
    heapsVariable_ = address(array_);

    set(address(method_), "Method", "_constMethod", address(constMethod_));
    set(address(constMethod_), "ConstMethod", "_constants", address(pool_));
    set(address(constMethod_), "ConstMethod", "_name_index", 1);
    set(address(constMethod_), "ConstMethod", "_signature_index", 2);
    set(address(pool_), "ConstantPool", "_length", 3);
    setSymbol(symbols_[0], "linkToSpecial");
    setSymbol(symbols_[1], "(Ljava/lang/Object;JLjava/lang/invoke/MemberName;)J");
    const uintptr_t slots = address(pool_) + size("ConstantPool");
    store(slots + 1 * 8, address(symbols_[0]), 8);
    store(slots + 2 * 8, address(symbols_[1]), 8);
  }

  std::unique_ptr<HotSpotNmethods> open(std::string &error) const {
    return HotSpotNmethods::fromSymbols([this](const char *name) { return symbol(name); }, error);
  }

  Version &version() { return version_; }
  void setNmethod(const char *field, uint64_t value) {
    set(blob_, has("nmethod", field) ? "nmethod" : "CompiledMethod", field, value);
  }
  void setBlob(const char *field, uint64_t value) { set(blob_, "CodeBlob", field, value); }
  void setSegment(uint64_t segment, uint8_t value) { segmap_[segment] = value; }
  uint64_t segmentOf(uintptr_t at) const { return (at - address(code_)) >> kLog2Segment; }
  void setBlockUsed(uint64_t used) {
    set(address(code_) + kFirstSegment * kSegment, "HeapBlock::Header", "_used", used);
  }
  void setNameIndex(uint64_t index) {
    set(address(constMethod_), "ConstMethod", "_name_index", index);
  }

  uintptr_t code = 0; // where the nmethod's code begins

private:
  template <class T> static uintptr_t address(const std::vector<T> &v) {
    return reinterpret_cast<uintptr_t>(v.data());
  }

  const Field *find(const char *type, const char *name) const {
    for (const Field &f : version_.fields)
      if (std::strcmp(f.type, type) == 0 && std::strcmp(f.name, name) == 0)
        return &f;
    return nullptr;
  }
  bool has(const char *type, const char *name) const { return find(type, name) != nullptr; }
  uint64_t offset(const char *type, const char *name) const {
    const Field *f = find(type, name);
    EXPECT_TRUE(f) << type << "::" << name;
    return f ? f->offset : 0;
  }
  uint64_t size(const char *type) const {
    for (const Type &t : version_.types)
      if (std::strcmp(t.name, type) == 0)
        return t.size;
    return 8; // a pointer
  }

  static void store(uintptr_t at, uint64_t value, uint64_t bytes) {
    std::memcpy(reinterpret_cast<void *>(at), &value, bytes); // little-endian
  }
  // Writes `value` into `type::name` of the object at `object`, as wide as
  // its declared type.
  void set(uintptr_t object, const char *type, const char *name, uint64_t value) {
    const Field *f = find(type, name);
    ASSERT_TRUE(f) << type << "::" << name;
    store(object + f->offset, value,
          f->typeString ? std::min<uint64_t>(size(f->typeString), 8) : 8);
  }
  void setSymbol(std::vector<uint64_t> &symbol, const std::string &text) {
    set(address(symbol), "Symbol", "_length", text.size());
    std::memcpy(reinterpret_cast<char *>(symbol.data()) + offset("Symbol", "_body"), text.data(),
                text.size());
  }

  const void *symbol(const char *name) const {
    static const std::map<std::string, uint64_t> offsets = {
        {"gHotSpotVMStructEntryArrayStride", sizeof(StructEntry)},
        {"gHotSpotVMStructEntryTypeNameOffset", offsetof(StructEntry, typeName)},
        {"gHotSpotVMStructEntryFieldNameOffset", offsetof(StructEntry, fieldName)},
        {"gHotSpotVMStructEntryTypeStringOffset", offsetof(StructEntry, typeString)},
        {"gHotSpotVMStructEntryIsStaticOffset", offsetof(StructEntry, isStatic)},
        {"gHotSpotVMStructEntryOffsetOffset", offsetof(StructEntry, offset)},
        {"gHotSpotVMStructEntryAddressOffset", offsetof(StructEntry, address)},
        {"gHotSpotVMTypeEntryArrayStride", sizeof(TypeEntry)},
        {"gHotSpotVMTypeEntryTypeNameOffset", offsetof(TypeEntry, typeName)},
        {"gHotSpotVMTypeEntrySizeOffset", offsetof(TypeEntry, size)},
        {"gHotSpotVMTypeEntryIsIntegerTypeOffset", offsetof(TypeEntry, isIntegerType)},
        {"gHotSpotVMTypeEntryIsUnsignedOffset", offsetof(TypeEntry, isUnsigned)},
        {"gHotSpotVMIntConstantEntryArrayStride", sizeof(IntConstantEntry)},
        {"gHotSpotVMIntConstantEntryNameOffset", offsetof(IntConstantEntry, name)},
        {"gHotSpotVMIntConstantEntryValueOffset", offsetof(IntConstantEntry, value)},
    };
    const std::string text = name;
    if (text == "gHotSpotVMStructs")
      return &structsVariable_;
    if (text == "gHotSpotVMTypes")
      return &typesVariable_;
    if (text == "gHotSpotVMIntConstants")
      return &constantsVariable_;
    const auto found = offsets.find(text);
    return found == offsets.end() ? nullptr : &found->second;
  }

  Version version_;
  std::vector<StructEntry> structs_;
  std::vector<TypeEntry> types_;
  std::vector<IntConstantEntry> constants_;
  const StructEntry *structsVariable_ = nullptr;
  const TypeEntry *typesVariable_ = nullptr;
  const IntConstantEntry *constantsVariable_ = nullptr;
  uintptr_t heapsVariable_ = 0;
  uintptr_t blob_ = 0;
  // 8-byte aligned storage for the objects.
  std::vector<uint64_t> code_ = std::vector<uint64_t>(64 * kSegment / 8);
  std::vector<uint8_t> segmap_ = std::vector<uint8_t>(64);
  std::vector<uint64_t> heap_ = std::vector<uint64_t>(64);
  std::vector<uint64_t> array_ = std::vector<uint64_t>(4);
  std::vector<uintptr_t> heapList_;
  std::vector<uint64_t> method_ = std::vector<uint64_t>(16);
  std::vector<uint64_t> constMethod_ = std::vector<uint64_t>(16);
  std::vector<uint64_t> pool_ = std::vector<uint64_t>(16);
  std::vector<std::vector<uint64_t>> symbols_ = {std::vector<uint64_t>(16),
                                                 std::vector<uint64_t>(16)};
};

const void *at(uintptr_t address) { return reinterpret_cast<const void *>(address); }

class HotSpotNmethodsTest : public testing::TestWithParam<Version (*)()> {
protected:
  void SetUp() override { jvm.build(); }
  FakeJvm jvm{GetParam()()};
};

INSTANTIATE_TEST_SUITE_P(Jdk, HotSpotNmethodsTest, testing::Values(&jdk17, &jdk25),
                         [](const testing::TestParamInfo<Version (*)()> &info) {
                           return info.param == &jdk17 ? "17" : "25";
                         });

TEST_P(HotSpotNmethodsTest, NamesTheIntrinsicAndItsTier) {
  std::string error;
  auto nmethods = jvm.open(error);
  ASSERT_TRUE(nmethods) << error;
  EXPECT_EQ(error, "");
  const auto method = nmethods->methodOf(at(jvm.code));
  ASSERT_TRUE(method);
  EXPECT_EQ(method->name, "linkToSpecial");
  EXPECT_EQ(method->descriptor, "(Ljava/lang/Object;JLjava/lang/invoke/MemberName;)J");
  EXPECT_EQ(nmethods->levelOf(at(jvm.code)), 4);
  jvm.setNmethod("_comp_level", 3);
  EXPECT_EQ(nmethods->levelOf(at(jvm.code)), 3);
}

TEST_P(HotSpotNmethodsTest, OnlyTheStartOfAnNmethodsCode) {
  std::string error;
  auto nmethods = jvm.open(error);
  ASSERT_TRUE(nmethods) << error;
  EXPECT_FALSE(nmethods->methodOf(at(jvm.code + 1)));
  EXPECT_FALSE(nmethods->levelOf(at(jvm.code - kCodeAfterHeader)));
  EXPECT_FALSE(nmethods->levelOf(at(jvm.code + 64 * kSegment))); // past the heap
  ASSERT_EQ(nmethods->levelOf(at(jvm.code)), 4);
  // The code's segment marked free, or pointing before the heap: no block.
  const uint64_t segment = jvm.segmentOf(jvm.code);
  ASSERT_GT(segment, kFirstSegment);
  jvm.setSegment(segment, 0xff);
  EXPECT_FALSE(nmethods->levelOf(at(jvm.code)));
  jvm.setSegment(segment, static_cast<uint8_t>(segment + 1));
  EXPECT_FALSE(nmethods->levelOf(at(jvm.code)));
  // Or the block's header says it is free.
  jvm.setSegment(segment, static_cast<uint8_t>(segment - kFirstSegment));
  ASSERT_EQ(nmethods->levelOf(at(jvm.code)), 4);
  jvm.setBlockUsed(0);
  EXPECT_FALSE(nmethods->levelOf(at(jvm.code)));
}

TEST_P(HotSpotNmethodsTest, AnotherBlobIsNoNmethod) {
  std::string error;
  auto nmethods = jvm.open(error);
  ASSERT_TRUE(nmethods) << error;
  jvm.setBlob("_header_size", 64); // a BufferBlob's header, say
  EXPECT_FALSE(nmethods->methodOf(at(jvm.code)));
  EXPECT_FALSE(nmethods->levelOf(at(jvm.code)));
}

TEST_P(HotSpotNmethodsTest, AMethodNameOutsideThePoolIsNone) {
  std::string error;
  auto nmethods = jvm.open(error);
  ASSERT_TRUE(nmethods) << error;
  jvm.setNameIndex(3); // _length is 3
  EXPECT_FALSE(nmethods->methodOf(at(jvm.code)));
  jvm.setNameIndex(2); // a descriptor, no method name
  EXPECT_FALSE(nmethods->methodOf(at(jvm.code)));
  EXPECT_EQ(nmethods->levelOf(at(jvm.code)), 4);
}

TEST(HotSpotNmethods, Jdk25BlobOfAnotherKindIsNoNmethod) {
  FakeJvm jvm(jdk25());
  jvm.build();
  std::string error;
  auto nmethods = jvm.open(error);
  ASSERT_TRUE(nmethods) << error;
  jvm.setBlob("_kind", 2); // CodeBlobKind::Buffer
  EXPECT_FALSE(nmethods->methodOf(at(jvm.code)));
  EXPECT_FALSE(nmethods->levelOf(at(jvm.code)));
}

// The tables as a JDK 25 has them, with one thing changed.
template <class Change> std::string openChanged(Change change, bool expectNmethods) {
  FakeJvm jvm(jdk25());
  change(jvm.version());
  jvm.build();
  std::string error;
  auto nmethods = jvm.open(error);
  EXPECT_EQ(nmethods != nullptr, expectNmethods) << error;
  return error;
}

Field *fieldOf(Version &version, const char *type, const char *name) {
  for (Field &f : version.fields)
    if (std::strcmp(f.type, type) == 0 && std::strcmp(f.name, name) == 0)
      return &f;
  ADD_FAILURE() << type << "::" << name;
  static Field none{};
  return &none;
}

void remove(Version &version, const char *type, const char *name) {
  Field *f = fieldOf(version, type, name);
  version.fields.erase(version.fields.begin() + (f - version.fields.data()));
}

TEST(HotSpotNmethods, NoCodeBeginNorOffsetIsNoLookup) {
  // What the agent read of JDK 25 before it knew _code_offset.
  EXPECT_EQ(openChanged([](Version &v) { remove(v, "CodeBlob", "_code_offset"); }, false),
            "this JVM's VMStructs lacks CodeBlob::_code_offset");
}

TEST(HotSpotNmethods, AnOffsetDeclaredAPointerIsNotReadAsOne) {
  EXPECT_EQ(openChanged(
                [](Version &v) { fieldOf(v, "CodeBlob", "_code_offset")->typeString = "address"; },
                false),
            "this JVM's VMStructs lacks an integer CodeBlob::_code_offset");
  EXPECT_EQ(openChanged(
                [](Version &v) {
                  Field *f = fieldOf(v, "CodeBlob", "_code_offset");
                  f->name = "_code_begin";
                  f->typeString = "int";
                },
                false),
            "this JVM's VMStructs lacks a pointer CodeBlob::_code_begin");
}

TEST(HotSpotNmethods, AKindWithoutTheNmethodsValueIsNoLookup) {
  EXPECT_EQ(openChanged([](Version &v) { v.constants.erase(v.constants.end() - 2); }, false),
            "this JVM's VMStructs lacks CodeBlobKind::Nmethod");
}

TEST(HotSpotNmethods, AFieldOfAnUnknownTypeIsNotRead) {
  EXPECT_EQ(
      openChanged([](Version &v) { fieldOf(v, "CodeBlob", "_header_size")->typeString = "u3"; },
                  false),
      "this JVM's VMStructs lacks the type u3 of CodeBlob::_header_size");
  // The fields past the blob's header: only their queries fail.
  EXPECT_EQ(openChanged(
                [](Version &v) {
                  v.types.back().size = 3; /* CodeBlobKind */
                },
                false),
            "this JVM's VMStructs lacks an integer CodeBlob::_kind");
  EXPECT_EQ(openChanged(
                [](Version &v) { fieldOf(v, "nmethod", "_comp_level")->typeString = "CompLevel*"; },
                true),
            "no tiers: this JVM's VMStructs lacks the type CompLevel* of nmethod::_comp_level");
  EXPECT_EQ(openChanged([](Version &v) { fieldOf(v, "nmethod", "_method")->offset = 224; }, true),
            "no descriptors: this JVM's VMStructs lacks a Method, ConstantPool or Symbol layout "
            "understood");
}

TEST(HotSpotNmethods, AFieldPastTheHeaderIsNotRead) {
  // JDK 25's 8-byte HeapBlock, with its _used flag said to be past it.
  EXPECT_EQ(
      openChanged([](Version &v) { fieldOf(v, "HeapBlock::Header", "_used")->offset = 8; }, false),
      "this JVM's VMStructs lacks a code heap layout understood");
}

TEST(HotSpotNmethods, NoTablesNoLookup) {
  std::string error;
  EXPECT_FALSE(HotSpotNmethods::fromSymbols([](const char *) { return nullptr; }, error));
  EXPECT_EQ(error.rfind("libjvm.so does not export gHotSpotVMStructs, ", 0), 0u) << error;
}

} // namespace

// Where calls enter the code: 17 holds the address, 25 an offset from the code.
TEST_P(HotSpotNmethodsTest, TheVerifiedEntryPointIsFound) {
  std::string error;
  auto nmethods = jvm.open(error);
  ASSERT_TRUE(nmethods) << error;
  EXPECT_EQ(nmethods->verifiedEntryOf(at(jvm.code)), jvm.code + kVerifiedEntry);
  EXPECT_FALSE(nmethods->verifiedEntryOf(at(jvm.code + 1))); // no nmethod's code starts there
  // An entry outside the blob, or at its start, is none.
  const auto &fields = jvm.version().fields;
  if (std::any_of(fields.begin(), fields.end(), [](const Field &f) {
        return std::string(f.name) == "_verified_entry_point";
      })) {
    jvm.setNmethod("_verified_entry_point", jvm.code + 64 * kSegment);
    EXPECT_FALSE(nmethods->verifiedEntryOf(at(jvm.code)));
    jvm.setNmethod("_verified_entry_point", jvm.code);
  } else {
    jvm.setNmethod("_verified_entry_offset", 60000);
    EXPECT_FALSE(nmethods->verifiedEntryOf(at(jvm.code)));
    jvm.setNmethod("_verified_entry_offset", 0);
  }
  EXPECT_FALSE(nmethods->verifiedEntryOf(at(jvm.code)));
}
