// JSON symbol file rendering with nlohmann/json.
#include "jitsym/objects/SymbolFileWriter.h"

#include <nlohmann/json.hpp>

#include "jitsym/objects/LldbSymbols.h"

namespace jitsym {

static void to_json(nlohmann::json &j, const SectionSpec &s) {
  j = nlohmann::json{{"name", s.name},   {"type", "code"},    {"address", s.address},
                     {"size", s.size},   {"read", s.read},    {"write", s.write},
                     {"execute", s.execute}};
}

std::string renderSymbolFile(const SymbolFileSpec &spec, const SymbolTable &table,
                             const std::vector<const Symbol *> &symbols,
                             SymbolPredicate isData) {
  // nlohmann::ordered_json keeps the header first, as the format asks.
  nlohmann::ordered_json doc;
  doc["triple"] = spec.triple;
  doc["uuid"] = spec.uuid;
  doc["type"] = spec.type;
  if (!spec.sections.empty()) {
    nlohmann::json sections = nlohmann::json::array();
    for (const SectionSpec &s : spec.sections)
      sections.push_back(s);
    doc["sections"] = std::move(sections);
  }
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (LldbSymbol &symbol : lldbSymbolsOf(table, symbols, isData)) {
    nlohmann::ordered_json entry;
    entry["name"] = std::move(symbol.name);
    entry["type"] = symbol.data ? "data" : "code";
    entry["address"] = symbol.address;
    entry["size"] = symbol.size;
    list.push_back(std::move(entry));
  }
  doc["symbols"] = std::move(list);
  std::string text = doc.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  if (lldbMisreadsJsonOfSize(text.size()))
    text.insert(text.size() - 1, " ");
  return text;
}

bool lldbMisreadsJsonOfSize(uint64_t bytes) {
  // LLDB maps files of 16 KiB and more; below that it reads them into a
  // buffer that ends with a NUL.
  constexpr uint64_t kMappedFrom = 16 * 1024, kPage = 4096;
  return bytes >= kMappedFrom && bytes % kPage == 0;
}

std::vector<SectionSpec> sectionsOf(const std::vector<PlannedRegion> &regions) {
  std::vector<SectionSpec> sections;
  for (const PlannedRegion &region : regions) {
    SectionSpec spec;
    spec.name = ".jit" + std::to_string(sections.size());
    spec.address = region.section.start;
    spec.size = region.section.end - region.section.start;
    sections.push_back(std::move(spec));
  }
  return sections;
}

} // namespace jitsym
