// A printf call's text, made from its format and its arguments as the
// compile watch finds them at the call's first instruction: a runtime that
// fprintf's its perf map into a FILE it does not flush (Mono's --jitmap)
// announces a method by nothing else before the method runs.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace jitsym {

// The text printf would make of `format`, with the integer-class variadic
// arguments `argument(0)`, `argument(1)`... (each a register or stack slot's
// 64 bits) and the strings of %s read by `readString(address)`. Handles the
// conversions d i u o x X c s p and %%, with flags (- + space # 0), a width
// and a precision given as digits, and the length modifiers hh h l ll z j t.
// std::nullopt for anything else (%f and the other floating conversions, *
// widths, %n, positional arguments), for an argument or string that cannot
// be read, and for a text over `maxBytes`: a caller then does without it.
std::optional<std::string>
formatPrintf(std::string_view format, const std::function<std::optional<uint64_t>(size_t)> &argument,
             const std::function<std::optional<std::string>(uint64_t)> &readString,
             size_t maxBytes = 1 << 16);

} // namespace jitsym
