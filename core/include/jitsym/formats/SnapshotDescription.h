// DIR/process.json, the description of a snapshot (see Snapshot.h), as pure
// functions over its text: what `jitsym snapshot` writes and what jit-sync
// --dir and jit-symbolicate --dir read back. A snapshot directory may come
// from another machine or another user, so the text is not trusted: the file
// names it gives must name files inside the directory.
#pragma once

#include <string>
#include <string_view>

#include "jitsym/files/Snapshot.h"
#include "llvm/Support/Error.h"

namespace jitsym {

// The JSON text of `snapshot`; the saved files are named by their base names.
// Bytes of its strings that are not UTF-8 are written as U+FFFD.
std::string describeSnapshot(const Snapshot &snapshot);

// The snapshot `text` describes, its saved files as paths inside `directory`;
// `path` (the file the text came from) is for messages. A missing or mistyped
// field is left at its default; fails when the text is not a JSON object with
// an unsigned "pid", or a saved file is named by anything but a file name.
llvm::Expected<Snapshot> parseSnapshotDescription(std::string_view text,
                                                  const std::string &directory,
                                                  const std::string &path);

} // namespace jitsym
