// libjitsym-watch.so: the compile watch's filter inside a runtime that has no
// hook of its own (V8 in Node, Deno and Bun, BEAM, Mono, CPython...). jitsym's
// plugin preloads it (LD_PRELOAD) at `process launch` and `run` while
// `jit-sync --filter-writes` is on: it defines write, fwrite, fprintf... and
// so comes before glibc for every module of the program, those loaded later
// included (and those loaded with RTLD_DEEPBIND: DeepBoundModules.cpp). Each does what glibc's does (found with dlsym(RTLD_NEXT)); for
// a write to the program's perf map or jitdump it then reads what was
// written (core AnnouncementScanner.h) and calls jitsym_code_announced(),
// where the debugger stops, only when the watch list wants it: one stop per
// wanted announcement instead of one per write (V8 writes a perf map line per
// code object). Not seen: glibc's calls inside itself (vfprintf's own write),
// a direct system call.
//
// The wrappers run on the runtime's threads, write() from signal handlers
// included (libuv's signal pipe): a write to any other descriptor costs an
// atomic read and, once per descriptor, a readlink; no lock, no allocation.
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "FollowedDescriptors.h"
#include "jitsym/formats/AnnouncementScanner.h"
#include "jitsym/writer/DebuggerHook.h"

#define JITSYM_EXPORT extern "C" __attribute__((visibility("default")))

// Written by the debugger: 0 while no breakpoint waits (the wrappers only pass
// calls on), else a number it changes each time it turns the filter on, so
// that the streams are looked at afresh (writes went by unread meanwhile).
// On from the start unless the launch says otherwise (startAsLaunched).
extern "C" {
__attribute__((visibility("default"))) std::atomic<uint32_t> jitsym_filter_generation{1};
// glibc's _FORTIFY_SOURCE entry points, which <stdio.h> declares only for
// fortified builds.
int __vfprintf_chk(FILE *file, int flag, const char *format, va_list args);
int __vsnprintf_chk(char *out, size_t size, int flag, size_t space, const char *format,
                    va_list args);
}

namespace {

// Off from the start when the plugin preloaded the filter with no breakpoint
// waiting yet (JITSYM_FILTER_START=off): it turns it on when one comes.
__attribute__((constructor)) void startAsLaunched() {
  const char *start = getenv("JITSYM_FILTER_START");
  if (start && std::strcmp(start, "off") == 0)
    jitsym_filter_generation.store(0, std::memory_order_relaxed);
}

// glibc's function behind each of the filter's, found at its first call.
void *next(std::atomic<void *> &slot, const char *name) {
  void *function = slot.load(std::memory_order_relaxed);
  if (!function) {
    function = dlsym(RTLD_NEXT, name);
    slot.store(function, std::memory_order_relaxed);
  }
  return function;
}
#define REAL(name)                                                                     \
  ([]() {                                                                              \
    static std::atomic<void *> slot{nullptr};                                          \
    return reinterpret_cast<decltype(&::name)>(next(slot, #name));                     \
  }())

// What was read of each followed descriptor's stream, under `mutex` (runtimes
// write their perf map and jitdump under a lock of their own anyway).
struct Stream {
  uint32_t generation = 0;
  jitsym::PerfMapScanner map;
  jitsym::JitdumpScanner dump;
};
std::mutex mutex;
std::unordered_map<int, Stream> *streams; // made at first use, never freed

// The descriptor's stream, resumed where `position` (the stream offset of the
// write about to be made) is when the filter was turned on since it was last
// read. `buffered`: the bytes of a FILE not yet in the file.
Stream &streamOf(int fd, Kind kind, uint64_t position, std::string_view buffered) {
  if (!streams)
    streams = new std::unordered_map<int, Stream>;
  Stream &stream = (*streams)[fd];
  const uint32_t generation = jitsym_filter_generation.load(std::memory_order_relaxed);
  if (stream.generation == generation)
    return stream;
  stream = Stream();
  stream.generation = generation;
  if (kind == Jitdump) {
    const uint64_t inFile = position - buffered.size();
    stream.dump.resumeAt(position, [&](uint64_t offset, size_t size, char *out) {
      for (; size > 0 && offset < inFile; ) { // from the file, then from the FILE
        const ssize_t got = pread(fd, out, std::min<uint64_t>(size, inFile - offset),
                                  static_cast<off_t>(offset));
        if (got <= 0)
          return false;
        out += got, offset += static_cast<uint64_t>(got), size -= static_cast<size_t>(got);
      }
      if (size == 0)
        return true;
      if (offset - inFile + size > buffered.size())
        return false;
      std::memcpy(out, buffered.data() + (offset - inFile), size);
      return true;
    });
  }
  return stream;
}

bool scan(Stream &stream, Kind kind, std::string_view bytes) {
  return kind == PerfMap ? stream.map.add(bytes, jitsym_watch)
                         : stream.dump.add(bytes, jitsym_watch);
}

// A FILE's bytes not yet written to its descriptor (glibc's public struct).
std::string_view bufferOf(FILE *file) {
  if (!file->_IO_write_base || file->_IO_write_ptr < file->_IO_write_base)
    return {};
  return {file->_IO_write_base, static_cast<size_t>(file->_IO_write_ptr - file->_IO_write_base)};
}

void announce() { jitsym_code_announced(); }

// A write of `bytes` (made by `call`, which returns how many it wrote, or a
// negative number) to descriptor `fd` of kind `kind`, read after the call.
template <typename Call> ssize_t filtered(int fd, Kind kind, Call &&call) {
  std::unique_lock<std::mutex> lock(mutex);
  const off_t at = lseek(fd, 0, SEEK_CUR);
  Stream &stream = streamOf(fd, kind, at < 0 ? 0 : static_cast<uint64_t>(at), {});
  std::string_view written;
  const ssize_t result = call(written);
  const int saved = errno;
  const bool wanted = result > 0 && scan(stream, kind, written);
  lock.unlock();
  if (wanted)
    announce();
  errno = saved;
  return result;
}

// The same for a FILE: `call` adds to its buffer. A wanted announcement is
// not flushed: the debugger reads what the FILE holds at every stop, and the
// program's file gets its bytes when the program says (as without jitsym).
template <typename Call> auto filteredFile(FILE *file, Kind kind, Call &&call) {
  std::unique_lock<std::mutex> lock(mutex);
  const off_t at = ftello(file);
  Stream &stream = streamOf(fileno(file), kind, at < 0 ? 0 : static_cast<uint64_t>(at),
                            bufferOf(file));
  std::string_view written;
  const auto result = call(written);
  const int saved = errno;
  const bool wanted = !written.empty() && scan(stream, kind, written);
  lock.unlock();
  if (wanted)
    announce();
  errno = saved;
  return result;
}

void forget(int fd) {
  if (forgetKind(fd)) {
    std::lock_guard<std::mutex> lock(mutex);
    if (streams)
      streams->erase(fd);
  }
}

int printTo(FILE *file, const char *format, va_list args, int flag, bool checked) {
  const Kind kind = kindOf(fileno(file));
  if (kind == Other)
    return checked ? REAL(__vfprintf_chk)(file, flag, format, args)
                   : REAL(vfprintf)(file, format, args);
  // The text is made here, then written as fputs would.
  char small[1024];
  va_list copy;
  va_copy(copy, args);
  const int length = checked ? __vsnprintf_chk(small, sizeof small, flag, sizeof small, format, copy)
                             : vsnprintf(small, sizeof small, format, copy);
  va_end(copy);
  if (length < 0)
    return length;
  std::string large;
  const char *text = small;
  if (static_cast<size_t>(length) >= sizeof small) {
    large.resize(static_cast<size_t>(length) + 1);
    vsnprintf(large.data(), large.size(), format, args);
    text = large.data();
  }
  return filteredFile(file, kind, [&](std::string_view &written) {
    const size_t put = REAL(fwrite)(text, 1, static_cast<size_t>(length), file);
    written = std::string_view(text, put);
    return put == static_cast<size_t>(length) ? length : -1;
  });
}

// What a vectored write wrote: its vectors' bytes, up to `result` of them.
std::string_view joined(const struct iovec *vectors, int count, ssize_t result, std::string &out) {
  for (int i = 0; result > 0 && i < count && out.size() < static_cast<size_t>(result); ++i)
    out.append(static_cast<const char *>(vectors[i].iov_base),
               std::min(vectors[i].iov_len, static_cast<size_t>(result) - out.size()));
  return out;
}

} // namespace

JITSYM_EXPORT ssize_t write(int fd, const void *bytes, size_t count) {
  const Kind kind = kindOf(fd);
  if (kind == Other)
    return REAL(write)(fd, bytes, count);
  return filtered(fd, kind, [&](std::string_view &written) {
    const ssize_t result = REAL(write)(fd, bytes, count);
    if (result > 0)
      written = std::string_view(static_cast<const char *>(bytes), static_cast<size_t>(result));
    return result;
  });
}

JITSYM_EXPORT ssize_t writev(int fd, const struct iovec *vectors, int count) {
  const Kind kind = kindOf(fd);
  if (kind == Other)
    return REAL(writev)(fd, vectors, count);
  std::string all;
  return filtered(fd, kind, [&](std::string_view &written) {
    const ssize_t result = REAL(writev)(fd, vectors, count);
    written = joined(vectors, count, result, all);
    return result;
  });
}

// Positioned writes: a runtime that appends with them (tinyjit's --map-call)
// writes at the file's end, so the bytes go on the stream as written.
JITSYM_EXPORT ssize_t pwrite64(int fd, const void *bytes, size_t count, off_t offset) {
  const Kind kind = kindOf(fd);
  if (kind == Other)
    return REAL(pwrite64)(fd, bytes, count, offset);
  return filtered(fd, kind, [&](std::string_view &written) {
    const ssize_t result = REAL(pwrite64)(fd, bytes, count, offset);
    if (result > 0)
      written = std::string_view(static_cast<const char *>(bytes), static_cast<size_t>(result));
    return result;
  });
}

JITSYM_EXPORT ssize_t pwritev(int fd, const struct iovec *vectors, int count, off_t offset) {
  const Kind kind = kindOf(fd);
  if (kind == Other)
    return REAL(pwritev)(fd, vectors, count, offset);
  std::string all;
  return filtered(fd, kind, [&](std::string_view &written) {
    const ssize_t result = REAL(pwritev)(fd, vectors, count, offset);
    written = joined(vectors, count, result, all);
    return result;
  });
}

JITSYM_EXPORT ssize_t pwritev2(int fd, const struct iovec *vectors, int count,
                                off_t offset, int flags) {
  const Kind kind = kindOf(fd);
  if (kind == Other)
    return REAL(pwritev2)(fd, vectors, count, offset, flags);
  std::string all;
  return filtered(fd, kind, [&](std::string_view &written) {
    const ssize_t result = REAL(pwritev2)(fd, vectors, count, offset, flags);
    written = joined(vectors, count, result, all);
    return result;
  });
}

// glibc's other names of the same functions, as programs import them.
JITSYM_EXPORT ssize_t pwrite(int, const void *, size_t, off_t)
    __attribute__((alias("pwrite64")));
JITSYM_EXPORT ssize_t pwritev64(int, const struct iovec *, int, off_t)
    __attribute__((alias("pwritev")));
JITSYM_EXPORT ssize_t pwritev64v2(int, const struct iovec *, int, off_t, int)
    __attribute__((alias("pwritev2")));

namespace {

// fwrite and fwrite_unlocked, by glibc's `write`.
template <typename Write>
size_t writeItems(Write write, const void *bytes, size_t size, size_t count, FILE *file) {
  const Kind kind = kindOf(fileno(file));
  if (kind == Other)
    return write(bytes, size, count, file);
  return filteredFile(file, kind, [&](std::string_view &written) {
    const size_t items = write(bytes, size, count, file);
    written = std::string_view(static_cast<const char *>(bytes), items * size);
    return items;
  });
}

} // namespace

JITSYM_EXPORT size_t fwrite(const void *bytes, size_t size, size_t count, FILE *file) {
  return writeItems(REAL(fwrite), bytes, size, count, file);
}

JITSYM_EXPORT size_t fwrite_unlocked(const void *bytes, size_t size, size_t count, FILE *file) {
  return writeItems(REAL(fwrite_unlocked), bytes, size, count, file);
}

JITSYM_EXPORT int fputs(const char *text, FILE *file) {
  const Kind kind = kindOf(fileno(file));
  if (kind == Other)
    return REAL(fputs)(text, file);
  return filteredFile(file, kind, [&](std::string_view &written) {
    const int result = REAL(fputs)(text, file);
    if (result >= 0)
      written = text;
    return result;
  });
}

JITSYM_EXPORT int fputc(int c, FILE *file) {
  const Kind kind = kindOf(fileno(file));
  if (kind == Other)
    return REAL(fputc)(c, file);
  char byte = static_cast<char>(c);
  return filteredFile(file, kind, [&](std::string_view &written) {
    const int result = REAL(fputc)(c, file);
    if (result != EOF)
      written = std::string_view(&byte, 1);
    return result;
  });
}

JITSYM_EXPORT int vfprintf(FILE *file, const char *format, va_list args) {
  return printTo(file, format, args, 0, false);
}

JITSYM_EXPORT int fprintf(FILE *file, const char *format, ...) {
  va_list args;
  va_start(args, format);
  const int result = printTo(file, format, args, 0, false);
  va_end(args);
  return result;
}

JITSYM_EXPORT int __vfprintf_chk(FILE *file, int flag, const char *format, va_list args) {
  return printTo(file, format, args, flag, true);
}

JITSYM_EXPORT int __fprintf_chk(FILE *file, int flag, const char *format, ...) {
  va_list args;
  va_start(args, format);
  const int result = printTo(file, format, args, flag, true);
  va_end(args);
  return result;
}

JITSYM_EXPORT int close(int fd) {
  const int result = REAL(close)(fd);
  const int saved = errno;
  forget(fd);
  errno = saved;
  return result;
}

JITSYM_EXPORT int fclose(FILE *file) {
  const int fd = fileno(file);
  const int result = REAL(fclose)(file);
  const int saved = errno;
  forget(fd);
  errno = saved;
  return result;
}
