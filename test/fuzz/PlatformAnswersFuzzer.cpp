// libFuzzer target: the answers of LLDB's platform commands that jit-sync reads
// a remote target's files through (PlatformAnswers), whose text carries the
// bytes of a file on the other side.
//
// Input: 8 bytes of a number, then the text. Checked invariants:
//  - numberAfter gives the digits right after the first label, in full;
//  - fileReadData gives the bytes between the first 'Data = "' and the last
//    '"\n', never more than the "Return = " count, which it also gives;
//  - any bytes, framed as LLDB frames them with any count at least their
//    size, read back exactly with that count;
//  - any bytes encoded as base64(1) prints them (76 columns, '\n' or "\r\n")
//    decode back exactly; decoded text is never longer than 3/4 of its base64.
#include "PlatformAnswers.h"

#include "FuzzCheck.h"
#include "llvm/Support/Base64.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

using namespace jitsym::plugin;

namespace {

void checkNumberAfter(std::string_view text, std::string_view label) {
  const std::optional<uint64_t> value = numberAfter(text, label);
  const size_t at = text.find(label);
  if (at == std::string_view::npos) {
    CHECK(!value);
    return;
  }
  const std::string_view rest = text.substr(at + label.size());
  const size_t digits = std::min(rest.find_first_not_of("0123456789"), rest.size());
  const std::string_view spelled = rest.substr(0, digits);
  const size_t zeros = std::min(spelled.find_first_not_of('0'), spelled.size());
  const std::string_view significant = spelled.substr(zeros);
  if (!value) {
    // No digits, or a number over 64 bits.
    CHECK(digits == 0 || significant.size() > 20 ||
          (significant.size() == 20 && significant > "18446744073709551615"));
    return;
  }
  CHECK(digits > 0);
  CHECK(significant == (*value ? std::to_string(*value) : std::string()));
}

void checkFileRead(std::string_view text) {
  uint64_t returned = ~0ull;
  const std::optional<std::string> data = fileReadData(text, returned);
  if (!data)
    return;
  CHECK(numberAfter(text, "Return = ") == returned);
  CHECK(data->size() <= returned);
  const size_t start = text.find("Data = \"") + 8, end = text.rfind("\"\n");
  CHECK(end >= start && text.substr(start, end - start) == *data);
}

void checkFraming(std::string_view bytes, uint64_t number) {
  const uint64_t count = std::max<uint64_t>(bytes.size(), number >> 1);
  const std::string answer =
      "Return = " + std::to_string(count) + "\nData = \"" + std::string(bytes) + "\"\n";
  uint64_t returned = 0;
  const std::optional<std::string> data = fileReadData(answer, returned);
  CHECK(data && *data == bytes && returned == count);
}

void checkBase64(std::string_view bytes, uint64_t number) {
  const std::string encoded = llvm::encodeBase64(bytes);
  const char *newline = number & 1 ? "\r\n" : "\n";
  std::string lines;
  for (size_t at = 0; at < encoded.size(); at += 76)
    lines += encoded.substr(at, 76) + newline;
  const std::optional<std::string> decoded = decodeBase64Lines(lines);
  CHECK(decoded && *decoded == bytes);

  if (std::optional<std::string> any = decodeBase64Lines(bytes)) {
    size_t base64 = 0;
    for (char c : bytes)
      base64 += c != '\n' && c != '\r';
    CHECK(any->size() <= base64 / 4 * 3);
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint64_t number = 0;
  std::memcpy(&number, data, std::min(size, sizeof number));
  const std::string_view text(reinterpret_cast<const char *>(data) + std::min<size_t>(size, 8),
                              size - std::min<size_t>(size, 8));
  for (std::string_view label : {"Return = ", "File Descriptor = ", "(remote): "})
    checkNumberAfter(text, label);
  checkFileRead(text);
  checkFraming(text, number);
  checkBase64(text, number);
  return 0;
}
