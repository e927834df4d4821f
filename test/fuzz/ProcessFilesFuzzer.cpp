// libFuzzer target: the /proc parsers of ProcessFiles, over text a process
// controls in part (its command name inside /proc/PID/stat, its arguments in
// /proc/PID/cmdline, the names of the files it maps).
//
// Input: 8 bytes of numbers, then the text every parser is given. Checked
// invariants:
//  - the command name cannot move the fields of /proc/PID/stat: the start time
//    is the same whatever name (with spaces or parentheses) stands before it;
//  - a value rendered the way the kernel renders it is read back exactly
//    (start time, NStgid, Uid, fdinfo pos and flags, btime), whatever text
//    follows it;
//  - a number is read only from a whole field: a parse's value, printed again,
//    is the field it came from;
//  - an Android package is a non-empty prefix of argv0 without '/', ':' or NUL,
//    and the candidate perf map paths are the documented ones in their order;
//  - a jitdump found in a memory map is an executable mapping's path whose last
//    component is exactly jit-PID.dump for one of the two PIDs.
#include "jitsym/formats/MemoryMap.h"
#include "jitsym/files/ProcessFiles.h"

#include "FuzzCheck.h"

#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <string_view>
#include <vector>

using namespace jitsym;

namespace {

bool isDecimal(std::string_view text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

// Whether `word` is all decimal digits and spells `value` (leading zeros allowed).
bool spells(std::string_view word, uint64_t value) {
  if (!isDecimal(word))
    return false;
  const std::string digits = std::to_string(value);
  const size_t zeros = word.find_first_not_of('0');
  const std::string_view significant =
      zeros == std::string_view::npos ? std::string_view("0") : word.substr(zeros);
  return significant == digits;
}

// The whitespace-separated words of `text` (space and tab, as /proc uses),
// found another way than ProcessFiles finds them.
std::vector<std::string_view> wordsOf(std::string_view text) {
  std::vector<std::string_view> out;
  for (size_t start = text.find_first_not_of(" \t"); start != std::string_view::npos;) {
    const size_t end = std::min(text.find_first_of(" \t", start), text.size());
    out.push_back(text.substr(start, end - start));
    start = text.find_first_not_of(" \t", end);
  }
  return out;
}

// The value of the first "key:" line, as ProcessFiles documents it.
std::optional<std::string_view> firstField(std::string_view text, std::string_view key) {
  for (size_t pos = 0; pos <= text.size();) {
    const size_t nl = std::min(text.find('\n', pos), text.size());
    const std::string_view line = text.substr(pos, nl - pos);
    if (line.size() > key.size() && line.substr(0, key.size()) == key && line[key.size()] == ':')
      return line.substr(key.size() + 1);
    pos = nl + 1;
  }
  return std::nullopt;
}

void checkStat(std::string_view text, uint64_t number) {
  const std::optional<uint64_t> start = parseStartTime(text);
  if (start) {
    const size_t close = text.rfind(')');
    CHECK(close != std::string_view::npos);
    const std::vector<std::string_view> fields = wordsOf(text.substr(close + 1));
    CHECK(fields.size() > 19);
    CHECK(spells(fields[19], *start)); // a whole field, not a prefix of one
  }
  // The command name is whatever the process chose: it cannot shift fields.
  const size_t cut = std::min<size_t>(text.size(), number % 64);
  const std::string_view name = text.substr(0, cut), rest = text.substr(cut);
  CHECK(parseStartTime("4242 (" + std::string(name) + ") " + std::string(rest)) ==
        parseStartTime("4242 (x) " + std::string(rest)));
  // The kernel's own rendering, with the name, is read back.
  std::string stat = "4242 (" + std::string(name) + ") S";
  for (int field = 4; field < 22; ++field)
    stat += " " + std::to_string(field);
  stat += " " + std::to_string(number) + " 0 0\n";
  CHECK(parseStartTime(stat) == number);
}

void checkStatus(std::string_view text, uint64_t number) {
  if (std::optional<uint64_t> nspid = parseNamespacedPid(text)) {
    const std::optional<std::string_view> field = firstField(text, "NStgid");
    CHECK(field);
    const std::vector<std::string_view> ids = wordsOf(*field);
    CHECK(!ids.empty() && spells(ids.back(), *nspid));
  }
  if (std::optional<uid_t> uid = parseRealUid(text)) {
    const std::optional<std::string_view> field = firstField(text, "Uid");
    CHECK(field);
    const std::vector<std::string_view> ids = wordsOf(*field);
    CHECK(!ids.empty() && isDecimal(ids.front()));
  }
  const std::string ids = std::to_string(number >> 32) + "\t" + std::to_string(number & 0xffff);
  const std::string status = "Name:\tx\nNStgid:\t" + ids + "\nUid:\t" +
                             std::to_string(uint32_t(number)) + "\t0\t0\t0\n" +
                             std::string(text);
  CHECK(parseNamespacedPid(status) == (number & 0xffff));
  CHECK(parseRealUid(status) == static_cast<uid_t>(uint32_t(number)));
}

void checkFdInfo(std::string_view text, uint64_t number) {
  if (std::optional<DescriptorPosition> at = parseFdInfo(text)) {
    const std::optional<std::string_view> pos = firstField(text, "pos");
    CHECK(pos);
    const std::vector<std::string_view> words = wordsOf(*pos);
    CHECK(words.size() == 1 && spells(words[0], at->offset));
  }
  char rendered[96];
  const unsigned flags = static_cast<unsigned>(number >> 40) & 07777777;
  std::snprintf(rendered, sizeof rendered, "pos:\t%llu\nflags:\t0%o\nmnt_id:\t26\n",
                static_cast<unsigned long long>(number & 0xffffffffff), flags);
  const std::optional<DescriptorPosition> at = parseFdInfo(rendered + std::string(text));
  CHECK(at && at->offset == (number & 0xffffffffff));
  CHECK(at->appends == ((flags & O_APPEND) != 0));
}

void checkBootTime(std::string_view text, uint64_t number) {
  if (std::optional<uint64_t> boot = parseBootTime(text))
    CHECK(text.find("btime") != std::string_view::npos);
  CHECK(parseBootTime("cpu  1 2 3\nbtime " + std::to_string(number) + "\n" +
                      std::string(text)) == number);
}

void checkAndroid(std::string_view argv0, uint64_t pid) {
  const std::optional<std::string> package = androidPackage(argv0);
  if (package) {
    CHECK(!package->empty());
    CHECK(package->find_first_of(std::string_view("/:\0", 3)) == std::string::npos);
    CHECK(argv0.substr(0, package->size()) == *package);
  }
  const std::string name = "perf-" + std::to_string(pid) + ".map";
  const std::vector<std::string> paths = androidPerfMapPaths(pid, argv0);
  CHECK(paths.size() == (package ? 2u : 1u));
  CHECK(paths.back() == "/data/local/tmp/" + name);
  if (package)
    CHECK(paths.front() == "/data/data/" + *package + "/" + name);
  for (bool android : {false, true}) {
    const std::vector<std::string> remote = remotePerfMapCandidates(pid, argv0, android);
    CHECK(remote.size() == paths.size() + 1);
    CHECK((android ? remote.back() : remote.front()) == "/tmp/" + name);
  }
}

void checkJitdumpInMaps(std::string_view text, uint64_t pid, uint64_t namespacedPid) {
  const std::vector<Mapping> mappings = parseMemoryMap(text, "fuzz-maps");
  const std::optional<std::string> path = jitdumpInMemoryMap(mappings, pid, namespacedPid);
  if (!path)
    return;
  bool mapped = false;
  for (const Mapping &m : mappings)
    mapped |= m.execute && m.path == *path;
  CHECK(mapped);
  CHECK(!path->empty() && path->front() == '/');
  // One of the producers' forms (ProcessFiles.h), the process's PID in it.
  const std::string base = path->substr(path->rfind('/') + 1);
  bool named = false;
  for (uint64_t p : {pid, namespacedPid}) {
    const std::string id = std::to_string(p);
    named |= base == "jit-" + id + ".dump";
    for (const std::string &after : {"-" + id + ".dump", "-" + id + "-"}) {
      const size_t at = base.find(after);
      named |= at != std::string::npos && at > 4 && base.substr(0, 4) == "jit-" &&
               base.find_first_not_of("0123456789", 4) == at &&
               (after.back() != '-' || base.size() == at + after.size() + 6);
    }
  }
  CHECK(named);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  uint64_t number = 0;
  std::memcpy(&number, data, std::min<size_t>(size, sizeof number));
  const std::string_view text(reinterpret_cast<const char *>(data) + std::min<size_t>(size, 8),
                              size - std::min<size_t>(size, 8));
  checkStat(text, number);
  checkStatus(text, number);
  checkFdInfo(text, number);
  checkBootTime(text, number);
  checkAndroid(text, number & 0xffffff);
  // Small PIDs, so that the fuzzer can spell them in a map.
  checkJitdumpInMaps(text, number % 100000, (number >> 32) % 100);
  return 0;
}
