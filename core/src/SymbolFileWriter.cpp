// JSON symbol file rendering with nlohmann/json.
#include "jitsym/SymbolFileWriter.h"

#include <nlohmann/json.hpp>

namespace jitsym {

static void to_json(nlohmann::json &j, const SectionSpec &s) {
  j = nlohmann::json{{"name", s.name},   {"type", "code"},    {"address", s.address},
                     {"size", s.size},   {"read", s.read},    {"write", s.write},
                     {"execute", s.execute}};
}

std::string renderSymbolFile(const SymbolFileSpec &spec, const SymbolTable &table,
                             const std::vector<const Symbol *> &symbols) {
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
  for (const Symbol *symbol : symbols) {
    nlohmann::ordered_json entry;
    entry["name"] = std::string(table.name(*symbol));
    entry["type"] = "code";
    entry["address"] = symbol->address;
    entry["size"] = symbol->size;
    list.push_back(std::move(entry));
  }
  doc["symbols"] = std::move(list);
  return doc.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

} // namespace jitsym
