// libFuzzer target: a snapshot's process.json, read (the text of a snapshot
// directory someone handed over) and written (from what /proc said of a
// process: its arguments and paths are whatever bytes it chose).
//
// Input: JSON text; the same bytes split at NULs also fill a snapshot's
// strings. Checked invariants:
//  - a text is either refused with a message that names the file, or gives a
//    snapshot whose saved files are empty or a plain file name inside the
//    directory ('/', "." and ".." never get through);
//  - what was read, written again, reads back the same;
//  - any snapshot can be written (no exception for bytes that are not UTF-8),
//    reads back, and its strings that are UTF-8 read back exactly.
#include "jitsym/formats/SnapshotDescription.h"

#include "FuzzCheck.h"
#include "llvm/Support/ConvertUTF.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

using namespace jitsym;

namespace {

const std::string kDirectory = "/snap/dir";
const std::string kPath = kDirectory + "/process.json";

bool sameSnapshot(const Snapshot &a, const Snapshot &b) {
  if (a.jitdumpDescriptors.size() != b.jitdumpDescriptors.size())
    return false;
  for (size_t i = 0; i < a.jitdumpDescriptors.size(); ++i)
    if (a.jitdumpDescriptors[i].fd != b.jitdumpDescriptors[i].fd ||
        a.jitdumpDescriptors[i].offset != b.jitdumpDescriptors[i].offset)
      return false;
  return a.directory == b.directory && a.pid == b.pid && a.namespacedPid == b.namespacedPid &&
         a.startTime == b.startTime && a.uid == b.uid && a.executable == b.executable &&
         a.commandLine == b.commandLine && a.bootId == b.bootId && a.takenAt == b.takenAt &&
         a.maps == b.maps && a.perfMap == b.perfMap && a.jitdump == b.jitdump &&
         a.perfMapSource == b.perfMapSource && a.jitdumpSource == b.jitdumpSource;
}

void checkSavedFile(const std::string &path) {
  if (path.empty())
    return;
  CHECK(path.size() > kDirectory.size() + 1);
  CHECK(path.compare(0, kDirectory.size() + 1, kDirectory + "/") == 0);
  const std::string name = path.substr(kDirectory.size() + 1);
  CHECK(name.find('/') == std::string::npos && name != "." && name != "..");
}

bool isUtf8(const std::string &text) {
  auto *begin = reinterpret_cast<const llvm::UTF8 *>(text.data());
  return llvm::isLegalUTF8String(&begin, begin + text.size());
}

// A file name a snapshot could hold, from any bytes.
std::string savedFile(std::string name) {
  for (char &c : name)
    if (c == '/')
      c = '_';
  return name.empty() || name == "." || name == ".." ? "" : kDirectory + "/" + name;
}

void checkRead(std::string_view text) {
  llvm::Expected<Snapshot> read = parseSnapshotDescription(text, kDirectory, kPath);
  if (!read) {
    const std::string message = llvm::toString(read.takeError());
    CHECK(message.compare(0, kPath.size() + 2, kPath + ": ") == 0);
    return;
  }
  CHECK(read->directory == kDirectory);
  checkSavedFile(read->maps);
  checkSavedFile(read->perfMap);
  checkSavedFile(read->jitdump);
  const std::string written = describeSnapshot(*read);
  llvm::Expected<Snapshot> again = parseSnapshotDescription(written, kDirectory, kPath);
  CHECK(again);
  CHECK(sameSnapshot(*read, *again));
}

void checkWritten(std::string_view bytes) {
  std::vector<std::string> fields;
  for (size_t at = 0; fields.size() < 8;) {
    const size_t nul = std::min(bytes.find('\0', at), bytes.size());
    fields.emplace_back(bytes.substr(std::min(at, bytes.size()), nul - std::min(at, bytes.size())));
    at = nul + 1;
  }
  uint64_t number = 0;
  std::memcpy(&number, bytes.data(), std::min(bytes.size(), sizeof number));
  Snapshot snapshot;
  snapshot.directory = kDirectory;
  snapshot.pid = number % 4194304;
  snapshot.namespacedPid = number >> 40;
  snapshot.startTime = number;
  if (number & 1)
    snapshot.uid = static_cast<uint32_t>(number >> 8);
  snapshot.takenAt = static_cast<int64_t>(number);
  snapshot.executable = fields[0];
  snapshot.commandLine = fields[1];
  snapshot.bootId = fields[2];
  snapshot.perfMapSource = fields[3];
  snapshot.jitdumpSource = fields[4];
  snapshot.maps = savedFile(fields[5]);
  snapshot.perfMap = savedFile(fields[6]);
  snapshot.jitdump = savedFile(fields[7]);
  if (number & 2)
    snapshot.jitdumpDescriptors.push_back({static_cast<int>(number >> 16), number >> 3});

  const std::string written = describeSnapshot(snapshot);
  llvm::Expected<Snapshot> read = parseSnapshotDescription(written, kDirectory, kPath);
  CHECK(read);
  bool allUtf8 = true;
  for (const std::string &field : fields)
    allUtf8 &= isUtf8(field);
  if (allUtf8)
    CHECK(sameSnapshot(snapshot, *read));
  CHECK(read->pid == snapshot.pid && read->uid == snapshot.uid &&
        read->takenAt == snapshot.takenAt);
  // A saved file's name is not UTF-8 only if its bytes were not: then it
  // still names a file inside the directory.
  checkSavedFile(read->maps);
  checkSavedFile(read->perfMap);
  checkSavedFile(read->jitdump);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char *>(data), size);
  checkRead(bytes);
  checkWritten(bytes);
  return 0;
}
