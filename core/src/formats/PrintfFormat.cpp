// printf's integer and string conversions, for the compile watch.
#include "jitsym/formats/PrintfFormat.h"

#include <algorithm>

namespace jitsym {
namespace {

struct Spec {
  bool left = false, plus = false, space = false, alternate = false, zero = false;
  size_t width = 0;
  std::optional<size_t> precision;
  int bits = 32; // the argument's width: hh 8, h 16, none 32, l ll z j t 64
};

std::string digitsOf(uint64_t value, unsigned base, bool upper) {
  const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  std::string out;
  do {
    out.push_back(digits[value % base]);
    value /= base;
  } while (value);
  std::reverse(out.begin(), out.end());
  return out;
}

uint64_t truncated(uint64_t value, int bits) {
  return bits >= 64 ? value : value & ((uint64_t{1} << bits) - 1);
}

int64_t signExtended(uint64_t value, int bits) {
  if (bits >= 64)
    return static_cast<int64_t>(value);
  const uint64_t sign = uint64_t{1} << (bits - 1);
  value = truncated(value, bits);
  return static_cast<int64_t>((value ^ sign) - sign);
}

// Pads `body` (after `prefix`: sign or 0x) to the width as printf does.
std::string padded(const Spec &spec, std::string prefix, std::string body, bool numeric) {
  const size_t length = prefix.size() + body.size();
  if (length >= spec.width)
    return prefix + body;
  const size_t fill = spec.width - length;
  if (spec.left)
    return prefix + body + std::string(fill, ' ');
  // 0 pads between the prefix and the digits, unless a precision is given
  if (spec.zero && numeric && !spec.precision)
    return prefix + std::string(fill, '0') + body;
  return std::string(fill, ' ') + prefix + body;
}

std::string integer(const Spec &spec, char conversion, uint64_t raw) {
  std::string prefix, digits;
  if (conversion == 'd' || conversion == 'i') {
    const int64_t value = signExtended(raw, spec.bits);
    const uint64_t magnitude =
        value < 0 ? uint64_t{0} - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
    digits = digitsOf(magnitude, 10, false);
    prefix = value < 0 ? "-" : spec.plus ? "+" : spec.space ? " " : "";
  } else {
    const uint64_t value = truncated(raw, spec.bits);
    const unsigned base = conversion == 'o' ? 8 : conversion == 'u' ? 10 : 16;
    digits = digitsOf(value, base, conversion == 'X');
    if (spec.alternate && value != 0 && base == 16)
      prefix = conversion == 'X' ? "0X" : "0x";
    if (spec.alternate && base == 8 && digits[0] != '0')
      digits.insert(digits.begin(), '0');
  }
  if (spec.precision) {
    if (*spec.precision == 0 && digits == "0")
      digits.clear();
    else if (digits.size() < *spec.precision)
      digits.insert(0, *spec.precision - digits.size(), '0');
  }
  return padded(spec, prefix, digits, true);
}

} // namespace

std::optional<std::string>
formatPrintf(std::string_view format, const std::function<std::optional<uint64_t>(size_t)> &argument,
             const std::function<std::optional<std::string>(uint64_t)> &readString,
             size_t maxBytes) {
  std::string out;
  size_t next = 0; // the next variadic argument
  auto take = [&]() { return argument(next++); };
  for (size_t at = 0; at < format.size();) {
    const char c = format[at++];
    if (c != '%') {
      out.push_back(c);
    } else {
      Spec spec;
      for (; at < format.size(); ++at) {
        const char flag = format[at];
        if (flag == '-')
          spec.left = true;
        else if (flag == '+')
          spec.plus = true;
        else if (flag == ' ')
          spec.space = true;
        else if (flag == '#')
          spec.alternate = true;
        else if (flag == '0')
          spec.zero = true;
        else
          break;
      }
      auto number = [&]() {
        size_t value = 0;
        while (at < format.size() && format[at] >= '0' && format[at] <= '9') {
          value = value * 10 + static_cast<size_t>(format[at++] - '0');
          if (value > maxBytes)
            return maxBytes + 1;
        }
        return value;
      };
      spec.width = number();
      if (at < format.size() && format[at] == '.') {
        ++at;
        spec.precision = number();
      }
      if (at < format.size() && format[at] == 'h') {
        ++at;
        spec.bits = 16;
        if (at < format.size() && format[at] == 'h') {
          ++at;
          spec.bits = 8;
        }
      } else if (at < format.size() && std::string_view("lzjt").find(format[at]) != std::string_view::npos) {
        const char length = format[at++];
        spec.bits = 64;
        if (length == 'l' && at < format.size() && format[at] == 'l')
          ++at;
      }
      if (at >= format.size() || spec.width > maxBytes || (spec.precision && *spec.precision > maxBytes))
        return std::nullopt;
      const char conversion = format[at++];
      switch (conversion) {
      case '%':
        out.push_back('%');
        break;
      case 'd':
      case 'i':
      case 'u':
      case 'o':
      case 'x':
      case 'X': {
        std::optional<uint64_t> value = take();
        if (!value)
          return std::nullopt;
        out += integer(spec, conversion, *value);
        break;
      }
      case 'p': {
        std::optional<uint64_t> value = take();
        if (!value)
          return std::nullopt;
        if (*value == 0) {
          out += padded(spec, "", "(nil)", false);
        } else {
          Spec hex = spec;
          hex.bits = 64;
          hex.alternate = true;
          out += integer(hex, 'x', *value);
        }
        break;
      }
      case 'c': {
        std::optional<uint64_t> value = take();
        if (!value)
          return std::nullopt;
        out += padded(spec, "", std::string(1, static_cast<char>(*value & 0xff)), false);
        break;
      }
      case 's': {
        std::optional<uint64_t> address = take();
        if (!address)
          return std::nullopt;
        std::optional<std::string> text =
            *address ? readString(*address) : std::optional<std::string>("(null)");
        if (!text)
          return std::nullopt;
        if (spec.precision && text->size() > *spec.precision)
          text->resize(*spec.precision);
        out += padded(spec, "", *text, false);
        break;
      }
      default: // floating point, %n, %m, '*', positional and wide forms
        return std::nullopt;
      }
    }
    if (out.size() > maxBytes)
      return std::nullopt;
  }
  return out;
}

} // namespace jitsym
