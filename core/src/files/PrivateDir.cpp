// Private directory handling and atomic writes.
#include "jitsym/files/PrivateDir.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <string>
#include <sys/file.h>
#include <vector>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

namespace jitsym {
namespace {

llvm::Error pathError(const std::string &path, const std::string &what) {
  return llvm::createStringError(std::errc::permission_denied, "%s: %s",
                                 path.c_str(), what.c_str());
}

llvm::Error ensurePrivateDir(const std::string &path) {
  if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
    return pathError(path, std::string("cannot create directory: ") + std::strerror(errno));
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0)
    return pathError(path, std::strerror(errno));
  if (!S_ISDIR(st.st_mode))
    return pathError(path, "exists and is not a directory (refusing to use it)");
  if (st.st_uid != ::geteuid())
    return pathError(path, "is owned by uid " + std::to_string(st.st_uid) +
                               ", not by this user (refusing to use it)");
  if ((st.st_mode & 077) != 0)
  {
    char mode[8];
    std::snprintf(mode, sizeof(mode), "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return pathError(path, std::string("is accessible to other users (mode ") + mode +
                               ", expected 0700; refusing to use it)");
  }
  return llvm::Error::success();
}

std::string sessionName(long pid) { return "session-" + std::to_string(pid); }

// The lock that marks this process's session directory in use (-1: none yet).
int &sessionLock() {
  static int fd = -1;
  return fd;
}

// Removes the session directories of processes that ended without removing
// them. A lock nobody holds is stale; a directory with no lock file at all
// (a session still being set up, or an older jitsym's) goes only once no
// process has its PID.
void removeAbandonedSessions(const std::string &root, const std::string &ours) {
  DIR *dir = ::opendir(root.c_str());
  if (!dir)
    return;
  std::vector<std::string> names;
  while (struct dirent *entry = ::readdir(dir))
    names.emplace_back(entry->d_name);
  ::closedir(dir);
  for (const std::string &name : names) {
    char *end = nullptr;
    if (name.rfind("session-", 0) != 0 || name == ours)
      continue;
    const long pid = std::strtol(name.c_str() + 8, &end, 10);
    if (pid <= 0 || *end != '\0')
      continue; // a lock file, handled with its directory
    const std::string lockPath = root + "/" + name + ".lock";
    const int lock = ::open(lockPath.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (lock >= 0) {
      if (::flock(lock, LOCK_EX | LOCK_NB) == 0) {
        removeTree(root + "/" + name);
        ::unlink(lockPath.c_str());
      }
      ::close(lock);
    } else if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) {
      removeTree(root + "/" + name);
    }
  }
}

} // namespace

llvm::Expected<std::string> sessionDirectory(const std::string &root) {
  const std::string name = sessionName(::getpid());
  if (sessionLock() < 0) {
    const std::string lockPath = root + "/" + name + ".lock";
    const int fd = ::open(lockPath.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 || ::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int saved = errno;
      if (fd >= 0)
        ::close(fd);
      return pathError(lockPath, std::string("cannot lock: ") + std::strerror(saved));
    }
    sessionLock() = fd;
    removeAbandonedSessions(root, name);
  }
  return privateSubdirectory(root, name);
}

void removeSessionDirectory(const std::string &root) {
  const std::string name = sessionName(::getpid());
  removeTree(root + "/" + name);
  if (sessionLock() >= 0) {
    ::unlink((root + "/" + name + ".lock").c_str());
    ::close(sessionLock());
    sessionLock() = -1;
  }
}

namespace {

bool isMemoryBacked(const char *path) {
  struct statfs fs;
  return ::statfs(path, &fs) == 0 && fs.f_type == TMPFS_MAGIC;
}

} // namespace

llvm::Expected<std::string> privateDirectory() {
  std::string dir;
  if (const char *explicitDir = std::getenv("JITSYM_DIR"); explicitDir && *explicitDir)
    dir = explicitDir;
  else if (const char *runtime = std::getenv("XDG_RUNTIME_DIR"); runtime && *runtime)
    dir = std::string(runtime) + "/jitsym";
  else if (isMemoryBacked("/dev/shm"))
    // Memory, as $XDG_RUNTIME_DIR is: each module's files cost no disk inode
    // work (a first sync of 100k symbols in 256 modules took twice as long
    // with its files on ext4).
    dir = "/dev/shm/jitsym-" + std::to_string(::geteuid());
  else
    dir = "/tmp/jitsym-" + std::to_string(::geteuid());
  if (llvm::Error err = ensurePrivateDir(dir))
    return err;
  return dir;
}

llvm::Expected<std::string> privateSubdirectory(const std::string &parent,
                                                const std::string &name) {
  std::string dir = parent + "/" + name;
  if (llvm::Error err = ensurePrivateDir(dir))
    return err;
  return dir;
}

llvm::Error writeFileAtomically(const std::string &path, std::string_view contents) {
  std::string temp = path + ".tmpXXXXXX";
  int fd = ::mkstemp(temp.data());
  if (fd < 0)
    return pathError(path, std::string("cannot create temporary file: ") + std::strerror(errno));
  size_t done = 0;
  while (done < contents.size()) {
    ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int saved = errno;
      ::close(fd);
      ::unlink(temp.c_str());
      return pathError(path, std::string("write failed: ") + std::strerror(saved));
    }
    done += static_cast<size_t>(n);
  }
  ::fchmod(fd, 0600);
  if (::close(fd) != 0 || ::rename(temp.c_str(), path.c_str()) != 0) {
    int saved = errno;
    ::unlink(temp.c_str());
    return pathError(path, std::string("cannot write: ") + std::strerror(saved));
  }
  return llvm::Error::success();
}

void removeTree(const std::string &path) {
  if (DIR *dir = ::opendir(path.c_str())) {
    while (struct dirent *entry = ::readdir(dir)) {
      std::string name = entry->d_name;
      if (name == "." || name == "..")
        continue;
      std::string child = path + "/" + name;
      struct stat st;
      if (::lstat(child.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        removeTree(child);
      else
        ::unlink(child.c_str());
    }
    ::closedir(dir);
  }
  ::rmdir(path.c_str());
}

} // namespace jitsym
