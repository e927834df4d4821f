// What LLDB prints for the platform commands PlatformFile runs, read back:
// pure functions over that text, which carries bytes of a file on the target's
// side (a perf map the runtime wrote) and numbers the platform answered.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace jitsym::plugin {

// The decimal number right after the first `label` in `text` ("File
// Descriptor = 3", "... (remote): 1024").
std::optional<uint64_t> numberAfter(std::string_view text, std::string_view label);

// The answer of `platform file read`: "Return = N\nData = \"BYTES\"\n". N is how
// many bytes were read (into `returned`); BYTES stop before the first NUL among
// them, so there are at most N. None for any other text.
std::optional<std::string> fileReadData(std::string_view answer, uint64_t &returned);

// The bytes of base64 text split into lines (as base64(1) prints them); none
// if it is not base64.
std::optional<std::string> decodeBase64Lines(std::string_view text);

} // namespace jitsym::plugin
