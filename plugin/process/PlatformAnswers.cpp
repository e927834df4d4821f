#include "PlatformAnswers.h"

#include <charconv>
#include <vector>

#include "llvm/Support/Base64.h"
#include "llvm/Support/Error.h"

namespace jitsym::plugin {

std::optional<uint64_t> numberAfter(std::string_view text, std::string_view label) {
  const size_t at = text.find(label);
  if (at == std::string_view::npos)
    return std::nullopt;
  const char *begin = text.data() + at + label.size();
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(begin, text.data() + text.size(), value);
  if (ec != std::errc() || end == begin)
    return std::nullopt;
  return value;
}

std::optional<std::string> fileReadData(std::string_view answer, uint64_t &returned) {
  std::optional<uint64_t> n = numberAfter(answer, "Return = ");
  constexpr std::string_view kData = "Data = \"";
  const size_t data = answer.find(kData);
  const size_t end = answer.rfind("\"\n");
  if (!n || data == std::string_view::npos || end == std::string_view::npos ||
      end < data + kData.size())
    return std::nullopt;
  std::string text(answer.substr(data + kData.size(), end - data - kData.size()));
  if (text.size() > *n)
    return std::nullopt;
  returned = *n;
  return text;
}

std::optional<std::string> decodeBase64Lines(std::string_view text) {
  std::string encoded;
  encoded.reserve(text.size());
  for (char c : text)
    if (c != '\n' && c != '\r')
      encoded += c;
  std::vector<char> decoded;
  if (llvm::Error error = llvm::decodeBase64(encoded, decoded)) {
    llvm::consumeError(std::move(error));
    return std::nullopt;
  }
  return std::string(decoded.begin(), decoded.end());
}

} // namespace jitsym::plugin
