// Reading HotSpot's own objects by address, with the offsets and sizes its
// VMStructs tables give. Private to the HotSpotNmethods files.
#pragma once

#include <cstdint>
#include <cstring>

namespace jitsym::jvmti {

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

inline int64_t loadInteger(uintptr_t address, const Integer &field) {
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

// The field lies inside an object of `size` bytes.
inline bool inside(const Integer &field, uint64_t size) {
  return field.offset + field.size <= size;
}

} // namespace jitsym::jvmti
