// libFuzzer target: the JVMTI agent's parsers, which see text from the JVM
// and from the user: its option string, class signatures and method
// descriptors, and the pc-to-line mapping.
//
// Input: NUL-separated fields: options, class signature, method name,
// descriptor; then the rest as (pc, line) pairs. Checked invariants:
//  - parseAgentOptions either succeeds with no error or fails with one that
//    quotes the input;
//  - a class name has no ';', '[' only as "[]" suffixes, no empty segment;
//  - a HotSpot-style method name holds "OWNER.NAME(" and ends with ')', and the
//    JVM style is accepted exactly when the HotSpot style is;
//  - line entries are sorted, inside the code, and no two in a row are equal.
#include "AgentOptions.h"
#include "JavaNames.h"
#include "LineMapping.h"

#include "FuzzCheck.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

using namespace jitsym::jvmti;

namespace {

std::string_view field(std::string_view &rest) {
  const size_t nul = rest.find('\0');
  std::string_view head = rest.substr(0, nul);
  rest = nul == std::string_view::npos ? std::string_view() : rest.substr(nul + 1);
  return head;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view rest(reinterpret_cast<const char *>(data), size);
  const std::string_view optionText = field(rest);
  const std::string_view classSignature = field(rest);
  const std::string_view methodName = field(rest);
  const std::string_view descriptor = field(rest);

  std::string error;
  std::optional<AgentOptions> options = parseAgentOptions(optionText, error);
  CHECK(options ? error.empty() : error.find(std::string(optionText)) != std::string::npos);

  if (std::optional<std::string> name = javaClassName(classSignature)) {
    CHECK(!name->empty());
    CHECK(name->find(';') == std::string::npos);
    CHECK(name->find("..") == std::string::npos);
  }
  std::optional<std::string> hotspot =
      javaMethodName(classSignature, methodName, descriptor, NameStyle::HotSpot);
  std::optional<std::string> jvm =
      javaMethodName(classSignature, methodName, descriptor, NameStyle::Jvm);
  CHECK(hotspot.has_value() == jvm.has_value());
  if (hotspot) {
    std::optional<std::string> owner = javaClassName(classSignature);
    CHECK(owner);
    CHECK(hotspot->find(*owner + "." + std::string(methodName) + "(") != std::string::npos);
    CHECK(hotspot->back() == ')');
  }

  std::vector<PcLine> pcs;
  while (rest.size() >= 6) {
    uint32_t pc = 0;
    uint16_t line = 0;
    std::memcpy(&pc, rest.data(), 4);
    std::memcpy(&line, rest.data() + 4, 2);
    rest.remove_prefix(6);
    pcs.push_back({pc % 0x2000, line, 0, line % 3 ? "A.java" : "B.java"});
  }
  const std::vector<PcLine> lines = linesBeforePcs(0x400, 0x1400, pcs);
  for (size_t i = 0; i < lines.size(); ++i) {
    CHECK(lines[i].address >= 0x400 && lines[i].address < 0x1400);
    if (i > 0) {
      CHECK(lines[i].address > lines[i - 1].address);
      CHECK(lines[i].line != lines[i - 1].line || lines[i].file != lines[i - 1].file);
    }
  }
  return 0;
}
