// Writing the JIT symbols of a process as loadable files, window by window.
#include "jitsym/RegionExport.h"

#include <cinttypes>
#include <cstdio>
#include <map>

#include "jitsym/HexText.h"
#include "jitsym/PrivateDir.h"
#include "jitsym/ProcessFiles.h"
#include "jitsym/SymbolFileWriter.h"
#include "jitsym/UnwindObject.h"
#include "jitsym/Uuid.h"
#include "llvm/Support/FileSystem.h"
#include <nlohmann/json.hpp>

namespace jitsym {
namespace {

struct PlannedRegion {
  AddressRange section;
  std::vector<const Symbol *> symbols;
};

// Symbols grouped by window and run of JIT memory: a window that spans two runs
// (a file mapping between them) gives two regions, each section in one run.
std::map<uint64_t, PlannedRegion> planRegions(const ExportRequest &request,
                                              ExportResult &result) {
  std::map<uint64_t, PlannedRegion> regions; // by section start
  request.table->forEach([&](const Symbol &symbol) {
    std::optional<AddressRange> run = request.space.runContaining(symbol.address);
    if (!run || (request.keep && !request.keep(symbol))) {
      ++result.outside;
      return;
    }
    AddressRange section = windowSection(windowIndexOf(symbol.address), *run);
    PlannedRegion &region = regions[section.start];
    region.section = section;
    region.symbols.push_back(&symbol);
  });
  return regions;
}

// The same symbols in the same place give the same UUID (FNV-1a, then SHA-1).
UuidBytes contentUuid(const SymbolTable &table, const PlannedRegion &region) {
  uint64_t digest = 1469598103934665603ull;
  auto mix = [&](uint64_t value) { digest = (digest ^ value) * 1099511628211ull; };
  mix(region.section.start);
  mix(region.section.end);
  for (const Symbol *symbol : region.symbols) {
    mix(symbol->address);
    mix(symbol->size);
    for (char c : table.name(*symbol))
      mix(static_cast<unsigned char>(c));
  }
  return uuidFromName("jitsym-export:" + std::to_string(digest));
}

// The directory of the region whose section starts at `start`.
std::string regionDirectoryName(uint64_t start) {
  char name[32];
  std::snprintf(name, sizeof(name), "w%" PRIx64, start);
  return name;
}

std::string quoted(const std::string &path) { return "\"" + path + "\""; }

std::string loadCommands(const ExportRequest &request, const ExportResult &result,
                         const std::string &loadPath) {
  std::string text = "# JIT symbols written by jitsym";
  if (!request.origin.empty())
    text += " from " + request.origin;
  text += ": " + std::to_string(result.symbols) + " functions in " +
          std::to_string(result.regions.size()) +
          (result.regions.size() == 1 ? " region.\n" : " regions.\n") +
          "# In a session of the same process (its core file, or the live process):\n"
          "#   command source " + loadPath + "\n";
  for (const ExportedRegion &region : result.regions) {
    text += "target modules add " + quoted(region.object) + "\n";
    text += "target modules load --file " + quoted(region.object) + " --slide 0\n";
    text += "target symbols add " + quoted(region.symbols) + "\n";
    if (!region.debug.empty())
      text += "target symbols add " + quoted(region.debug) + "\n";
  }
  return text;
}

std::string manifest(const ExportRequest &request, const ExportResult &result) {
  nlohmann::ordered_json json;
  json["triple"] = request.triple;
  json["origin"] = request.origin;
  json["regions"] = nlohmann::json::array();
  for (const ExportedRegion &region : result.regions)
    json["regions"].push_back({{"start", region.section.start},
                               {"end", region.section.end},
                               {"uuid", region.uuid},
                               {"object", region.object},
                               {"symbols", region.symbols},
                               {"debug", region.debug},
                               {"functions", region.symbolCount}});
  json["images"] = nlohmann::json::array();
  for (const Mapping &m : request.mappings)
    if (m.isFileBacked())
      json["images"].push_back({{"path", m.path},
                                {"start", m.start},
                                {"end", m.end},
                                {"offset", m.offset},
                                {"execute", m.execute}});
  return json.dump(1) + "\n";
}

// Region directories a previous export into the same directory listed.
void removePreviousExport(const std::string &directory) {
  std::optional<std::string> text = readFile(directory + "/regions.json");
  if (!text)
    return;
  nlohmann::json old = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!old.is_object() || !old.contains("regions") || !old["regions"].is_array())
    return;
  for (const auto &region : old["regions"]) {
    if (!region.is_object() || !region.contains("start") || !region["start"].is_number())
      continue;
    removeTree(directory + "/" + regionDirectoryName(region["start"].get<uint64_t>()));
  }
}

} // namespace

llvm::Expected<ExportResult> exportRegions(const std::string &directory,
                                           const ExportRequest &request) {
  if (std::error_code ec = llvm::sys::fs::create_directories(directory))
    return llvm::createStringError(ec, "%s: cannot create the directory: %s",
                                   directory.c_str(), ec.message().c_str());
  removePreviousExport(directory);
  ExportResult result;
  const std::map<uint64_t, PlannedRegion> planned = planRegions(request, result);
  static const LineTables noLines;
  static const UnwindTables noUnwind;
  const LineTables &lines = request.lines ? *request.lines : noLines;
  const UnwindTables &unwind = request.unwind ? *request.unwind : noUnwind;
  for (const auto &[start, plan] : planned) {
    const std::string regionDirectory = directory + "/" + regionDirectoryName(start);
    if (std::error_code ec = llvm::sys::fs::create_directories(regionDirectory))
      return llvm::createStringError(ec, "%s: cannot create the directory: %s",
                                     regionDirectory.c_str(), ec.message().c_str());
    ExportedRegion region;
    region.section = plan.section;
    const UuidBytes uuid = contentUuid(*request.table, plan);
    region.uuid = uuidToString(uuid);
    region.object = regionDirectory + "/jit";
    region.symbols = regionDirectory + "/jit.json";
    region.symbolCount = plan.symbols.size();
    if (llvm::Error err =
            writeFileAtomically(region.object, buildUnwindObject(plan.section, uuid)))
      return err;

    SymbolFileSpec spec;
    spec.triple = request.triple;
    spec.uuid = region.uuid;
    spec.sections.push_back({".text", plan.section.start, plan.section.end - plan.section.start});
    if (llvm::Error err = writeFileAtomically(
            region.symbols, renderSymbolFile(spec, *request.table, plan.symbols)))
      return err;

    bool anyDebugInfo = false;
    std::vector<DebugFunction> functions =
        debugFunctionsIn(*request.table, plan.section, lines, unwind, anyDebugInfo);
    if (anyDebugInfo) {
      llvm::Expected<std::string> image = buildDebugObject(
          plan.section, uuid, "jit", functions, lines, unwind, request.plausible);
      if (!image)
        return image.takeError();
      region.debug = regionDirectory + "/jit.debug";
      if (llvm::Error err = writeFileAtomically(region.debug, *image))
        return err;
    }
    result.symbols += region.symbolCount;
    result.regions.push_back(std::move(region));
  }
  const std::string loadPath = directory + "/load.lldb";
  if (llvm::Error err = writeFileAtomically(loadPath, loadCommands(request, result, loadPath)))
    return err;
  if (llvm::Error err = writeFileAtomically(directory + "/regions.json", manifest(request, result)))
    return err;
  return result;
}

} // namespace jitsym
