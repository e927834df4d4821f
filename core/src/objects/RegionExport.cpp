// Writing the JIT symbols of a process as loadable files, window by window.
#include "jitsym/objects/RegionExport.h"

#include "jitsym/plan/FramePointer.h"

#include <cinttypes>
#include <cstdio>

#include "jitsym/base/HexText.h"
#include "jitsym/objects/LldbCommand.h"
#include "jitsym/files/PrivateDir.h"
#include "jitsym/plan/RegionPlanner.h"
#include "jitsym/files/ProcessFiles.h"
#include "jitsym/objects/SymbolFileWriter.h"
#include "jitsym/objects/UnwindObject.h"
#include "jitsym/plan/Uuid.h"
#include "llvm/Support/FileSystem.h"
#include <nlohmann/json.hpp>

namespace jitsym {
namespace {

// The commands that give LLDB one region: its object, loaded where it was,
// then its symbol files.
llvm::Expected<std::vector<std::string>> regionCommands(const ExportedRegion &region) {
  std::vector<std::string> commands;
  llvm::Expected<std::string> object = lldbQuoted(region.object);
  if (!object)
    return object.takeError();
  commands.push_back("target modules add -- " + *object);
  commands.push_back("target modules load --file " + *object + " --slide 0");
  for (const std::string &file : region.symbolFiles()) {
    llvm::Expected<std::string> add = lldbCommandWithPath("target symbols add", file);
    if (!add)
      return add.takeError();
    commands.push_back(std::move(*add));
  }
  return commands;
}

llvm::Expected<std::string> loadCommands(const ExportRequest &request,
                                         const ExportResult &result,
                                         const std::string &loadPath) {
  llvm::Expected<std::string> quotedLoadPath = lldbQuoted(loadPath);
  if (!quotedLoadPath)
    return quotedLoadPath.takeError();
  std::string text = "# JIT symbols written by jitsym";
  if (!request.origin.empty())
    text += " from " + request.origin;
  text += ": " + std::to_string(result.symbols) + " functions in " +
          std::to_string(result.regions.size()) +
          (result.regions.size() == 1 ? " region.\n" : " regions.\n") +
          "# In a session of the same process (its core file, or the live process):\n"
          "#   command source " + *quotedLoadPath + "\n";
  for (const ExportedRegion &region : result.regions) {
    llvm::Expected<std::vector<std::string>> commands = regionCommands(region);
    if (!commands)
      return commands.takeError();
    for (const std::string &command : *commands)
      text += command + "\n";
  }
  return text;
}

// What tools that build a target of their own (jit-symbolicate) read; each
// region's commands to add its symbol files come ready quoted.
llvm::Expected<std::string> manifest(const ExportRequest &request, const ExportResult &result) {
  nlohmann::ordered_json json;
  json["triple"] = request.triple;
  json["origin"] = request.origin;
  json["regions"] = nlohmann::json::array();
  for (const ExportedRegion &region : result.regions) {
    nlohmann::json addSymbols = nlohmann::json::array();
    for (const std::string &file : region.symbolFiles()) {
      llvm::Expected<std::string> add = lldbCommandWithPath("target symbols add", file);
      if (!add)
        return add.takeError();
      addSymbols.push_back(std::move(*add));
    }
    json["regions"].push_back({{"start", region.section.start},
                               {"end", region.section.end},
                               {"uuid", region.uuid},
                               {"object", region.object},
                               {"symbols", region.symbols},
                               {"debug", region.debug},
                               {"add_symbols", std::move(addSymbols)},
                               {"functions", region.symbolCount}});
  }
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
    removeTree(directory + "/" +
               RegionFiles::directory(AddressRange{region["start"].get<uint64_t>(), 0}));
  }
}

} // namespace

llvm::Expected<ExportResult> exportRegions(const std::string &directory,
                                           const ExportRequest &request) {
  if (std::error_code ec = llvm::sys::fs::create_directories(directory))
    return llvm::createStringError(ec, "%s: cannot create the directory: %s",
                                   directory.c_str(), ec.message().c_str());
  // Objects are written for the triple's architecture (its machine, its
  // frame-pointer rule).
  const Architecture *arch = architectureOfTriple(request.triple);
  if (!arch)
    return llvm::createStringError(std::errc::invalid_argument,
                                   "triple '%s': jitsym writes objects for x86_64 and aarch64 "
                                   "code only",
                                   request.triple.c_str());
  removePreviousExport(directory);
  ExportResult result;
  static const JitTables noTables;
  const JitTables &tables = request.tables ? *request.tables : noTables;
  RegionPlanner planner(tables.symbols, request.space, request.claimed);
  std::vector<PlannedRegion> planned = planner.plan(&result.outside);
  auto isData = [&](const Symbol &symbol) { return planner.isData(symbol); };
  for (const PlannedRegion &plan : planned) {
    const std::string regionDirectory = directory + "/" + RegionFiles::directory(plan.section);
    if (std::error_code ec = llvm::sys::fs::create_directories(regionDirectory))
      return llvm::createStringError(ec, "%s: cannot create the directory: %s",
                                     regionDirectory.c_str(), ec.message().c_str());
    ExportedRegion region;
    region.section = plan.section;
    const UuidBytes uuid = regionUuid(tables.symbols, plan, "jitsym-export");
    region.uuid = uuidToString(uuid);
    region.object = regionDirectory + "/" + RegionFiles::kObject;
    region.symbols = regionDirectory + "/" + RegionFiles::symbols();
    region.symbolCount = plan.symbols.size();
    std::optional<FramePointerCode> framePointerCode;
    if (request.entries)
      framePointerCode = framePointerCodeOf(plan.section, plan.symbols, isData, request.entries);
    if (llvm::Error err = writeFileAtomically(
            region.object, buildUnwindObject(*arch, plan.section, uuid, {}, {}, framePointerCode)))
      return err;

    SymbolFileSpec spec;
    spec.triple = request.triple;
    spec.uuid = region.uuid;
    spec.sections = sectionsOf({plan});
    if (llvm::Error err = writeFileAtomically(
            region.symbols, renderSymbolFile(spec, tables.symbols, plan.symbols, isData)))
      return err;

    bool anyDebugInfo = false;
    std::vector<DebugFunction> functions =
        debugFunctionsIn(tables, plan.section, anyDebugInfo, isData);
    if (anyDebugInfo) {
      llvm::Expected<std::string> image = buildDebugObject(
          *arch, plan.section, uuid, "jit", functions, tables, request.plausible);
      if (!image)
        return image.takeError();
      region.debug = regionDirectory + "/" + RegionFiles::debug();
      if (llvm::Error err = writeFileAtomically(region.debug, *image))
        return err;
    }
    result.symbols += region.symbolCount;
    result.regions.push_back(std::move(region));
  }
  const std::string loadPath = directory + "/load.lldb";
  llvm::Expected<std::string> load = loadCommands(request, result, loadPath);
  if (!load)
    return load.takeError();
  if (llvm::Error err = writeFileAtomically(loadPath, *load))
    return err;
  llvm::Expected<std::string> regions = manifest(request, result);
  if (!regions)
    return regions.takeError();
  if (llvm::Error err = writeFileAtomically(directory + "/regions.json", *regions))
    return err;
  return result;
}

} // namespace jitsym
