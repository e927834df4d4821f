// Where jitsym writes its files: a directory only the current user can enter,
// never a shared /tmp path, and files that appear whole or not at all.
#pragma once

#include <string>
#include <string_view>

#include "llvm/Support/Error.h"

namespace jitsym {

// $JITSYM_DIR, else $XDG_RUNTIME_DIR/jitsym, else /tmp/jitsym-UID. Created with
// mode 0700; an existing path must be a real directory owned by this user with no
// access for others, otherwise it is refused (someone may have planted it).
llvm::Expected<std::string> privateDirectory();

// Creates (0700) or validates a subdirectory of a private directory.
llvm::Expected<std::string> privateSubdirectory(const std::string &parent,
                                                const std::string &name);

// This process's session directory, ROOT/session-PID, marked in use by a lock
// on ROOT/session-PID.lock that is held until the process ends. Its creation
// first removes the session directories whose lock nobody holds: those left by
// an LLDB that was killed or crashed before it could clean up.
llvm::Expected<std::string> sessionDirectory(const std::string &root);
// Removes this process's session directory and its lock.
void removeSessionDirectory(const std::string &root);

// Writes `contents` to a temporary file in the same directory, then renames it
// over `path`, so readers never see a partial file.
llvm::Error writeFileAtomically(const std::string &path, std::string_view contents);

// Removes a directory tree that jitsym created (no links followed).
void removeTree(const std::string &path);

} // namespace jitsym
