// Stable identifiers for the modules jitsym creates.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace jitsym {

using UuidBytes = std::array<uint8_t, 16>;

// A name-based UUID (RFC 4122 version 5 layout, SHA-1 of `name`): the same
// process, window and generation always get the same UUID.
UuidBytes uuidFromName(std::string_view name);

// "8-4-4-4-12" upper-case text, as LLDB prints and parses UUIDs.
std::string uuidToString(const UuidBytes &uuid);

} // namespace jitsym
