// The tables HotSpot exports about its own data structures, what the
// serviceability agent reads: gHotSpotVMStructs (each field's offset, or
// address if static, and declared type), gHotSpotVMTypes (each type's size,
// whether an integer, signed or not) and gHotSpotVMIntConstants, asked by
// name. Private to the HotSpotNmethods files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "HotSpotMemory.h"
#include "HotSpotNmethods.h"

namespace jitsym::jvmti {

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
                                       std::vector<std::string> &missing);

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

// gHotSpotVMStructs, gHotSpotVMTypes and gHotSpotVMIntConstants, looked up by
// name; each name asked for and not found goes to the `missing` of the ask.
class VmTables {
public:
  VmTables(const HotSpotNmethods::SymbolLookup &lookup, std::vector<std::string> &missing);

  bool complete() const { return structs_ && types_ && ints_; }

  // The first of `types` that declares `field`: its offset (or address, for
  // a static field) and type name.
  struct Field {
    uint64_t offset = 0;
    uintptr_t address = 0;
    const char *type = nullptr;
  };
  std::optional<Field> field(std::initializer_list<const char *> types, const char *field,
                             bool isStatic, std::vector<std::string> &missing) const;

  // Whether one of `types` declares the non-static `name`; nothing missing if not.
  bool has(std::initializer_list<const char *> types, const char *name) const;

  // A field whose declared type is `type`: a struct embedded, say.
  std::optional<Field> fieldOfType(std::initializer_list<const char *> types, const char *name,
                                   const char *type, std::vector<std::string> &missing) const;

  // A field declared a pointer: T* or HotSpot's `address`. A field that
  // became an integer offset (CodeBlob::_code_begin did) is not read as one.
  std::optional<Field> pointerField(std::initializer_list<const char *> types, const char *name,
                                    bool isStatic, std::vector<std::string> &missing) const;

  // A non-static field of an integer type (gHotSpotVMTypes says which, its
  // size and its signedness): 1, 2, 4 or 8 bytes.
  std::optional<Integer> integerField(std::initializer_list<const char *> types, const char *name,
                                      std::vector<std::string> &missing) const;

  std::optional<uint64_t> typeSize(const char *name, std::vector<std::string> &missing) const;

  std::optional<int> intConstant(const char *name, std::vector<std::string> &missing) const;

private:
  static bool isPointerType(const char *type);

  struct Type {
    uint64_t size = 0;
    bool isInteger = false, isUnsigned = false;
  };
  std::optional<Type> typeNamed(const char *name) const;

  std::optional<Table> structs_, types_, ints_;
};

} // namespace jitsym::jvmti
