// Turning addresses into "NAME+0xOFF", alone or inside free text (crash logs).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "jitsym/symbols/LineTables.h"
#include "jitsym/symbols/SymbolTable.h"

namespace jitsym {

// "NAME+0xOFF" (or "NAME" at offset 0), followed by " at FILE:LINE[:COLUMN]"
// when `lines` know the address's line; nothing when no symbol covers it.
std::optional<std::string> describeAddress(const SymbolTable &table, uint64_t address,
                                           const LineTables *lines = nullptr);

// Copies `text` through, adding " NAME+0xOFF" (and the line, as above) after
// every hexadecimal address ("0x..." or a bare run of 8 to 16 hex digits) that a
// symbol covers.
std::string symbolicateText(const SymbolTable &table, std::string_view text,
                            const LineTables *lines = nullptr);

// Parses "0x7f00..." or "7f00..." (hex) in full.
std::optional<uint64_t> parseAddress(std::string_view text);

} // namespace jitsym
