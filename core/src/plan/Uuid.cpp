// Name-based UUIDs using LLVM's SHA-1.
#include "jitsym/plan/Uuid.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SHA1.h"

namespace jitsym {

UuidBytes uuidFromName(std::string_view name) {
  llvm::SHA1 sha;
  sha.update(llvm::StringRef(name.data(), name.size()));
  auto digest = sha.final();
  UuidBytes uuid;
  for (size_t i = 0; i < uuid.size(); ++i)
    uuid[i] = digest[i];
  uuid[6] = (uuid[6] & 0x0f) | 0x50; // version 5
  uuid[8] = (uuid[8] & 0x3f) | 0x80; // RFC 4122 variant
  return uuid;
}

std::string uuidToString(const UuidBytes &uuid) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string text;
  for (size_t i = 0; i < uuid.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10)
      text += '-';
    text += kHex[uuid[i] >> 4];
    text += kHex[uuid[i] & 15];
  }
  return text;
}

} // namespace jitsym
