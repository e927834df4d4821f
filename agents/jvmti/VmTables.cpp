#include "VmTables.h"

#include <algorithm>
#include <cstring>

namespace jitsym::jvmti {
namespace {

bool same(const char *a, const char *b) { return a && b && std::strcmp(a, b) == 0; }

} // namespace

std::optional<Table> Table::exported(const HotSpotNmethods::SymbolLookup &lookup, const char *array,
                                     const char *strideName,
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

VmTables::VmTables(const HotSpotNmethods::SymbolLookup &lookup, std::vector<std::string> &missing) {
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

std::optional<VmTables::Field> VmTables::field(std::initializer_list<const char *> types,
                                               const char *field, bool isStatic,
                                               std::vector<std::string> &missing) const {
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

bool VmTables::has(std::initializer_list<const char *> types, const char *name) const {
  std::vector<std::string> ignored;
  return field(types, name, false, ignored).has_value();
}

std::optional<VmTables::Field> VmTables::fieldOfType(std::initializer_list<const char *> types,
                                                     const char *name, const char *type,
                                                     std::vector<std::string> &missing) const {
  auto found = field(types, name, false, missing);
  if (found && !same(found->type, type)) {
    missing.push_back(std::string(*types.begin()) + "::" + name + " of type " + type);
    return std::nullopt;
  }
  return found;
}

std::optional<VmTables::Field> VmTables::pointerField(std::initializer_list<const char *> types,
                                                      const char *name, bool isStatic,
                                                      std::vector<std::string> &missing) const {
  auto found = field(types, name, isStatic, missing);
  if (found && !isPointerType(found->type)) {
    missing.push_back("a pointer " + std::string(*types.begin()) + "::" + name);
    return std::nullopt;
  }
  return found;
}

std::optional<Integer> VmTables::integerField(std::initializer_list<const char *> types,
                                              const char *name,
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

std::optional<uint64_t> VmTables::typeSize(const char *name,
                                           std::vector<std::string> &missing) const {
  const auto type = typeNamed(name);
  if (!type) {
    missing.push_back(std::string("sizeof(") + name + ")");
    return std::nullopt;
  }
  return type->size;
}

std::optional<int> VmTables::intConstant(const char *name,
                                         std::vector<std::string> &missing) const {
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

bool VmTables::isPointerType(const char *type) {
  return type && (same(type, "address") || (*type && type[std::strlen(type) - 1] == '*'));
}

std::optional<VmTables::Type> VmTables::typeNamed(const char *name) const {
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

} // namespace jitsym::jvmti
