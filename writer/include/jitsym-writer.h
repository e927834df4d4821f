/*
 * jitsym-writer.h: announce JIT code to debuggers and profilers (jitsym's
 * jit-sync in LLDB, perf, samply) from any JIT, in C or C++.
 *
 * Two files, each optional:
 *   - the perf map /tmp/perf-PID.map: one "START SIZE NAME" line per function.
 *     The functions follow CPython's PyUnstable_WritePerfMapEntry API: the file
 *     is opened on first use, writes are thread-safe, errors are the same codes.
 *   - the jitdump DIR/jit-PID.dump (perf's binary format): names, the code
 *     bytes, and source line tables; code can also be unloaded.
 *
 * Thread safety: every function may be called from any thread at once; each
 * line or record is written whole by one write, so entries never interleave.
 * Fork: a child's first write creates its own files (perf-CHILD.map,
 * jit-CHILD.dump), which start with what the parent wrote before the fork, since
 * the child has the same code. The parent's files get nothing of the child's.
 *
 * Link with -ljitsym-writer (shared) or libjitsym-writer.a (static; then also
 * -lstdc++ -lpthread). Linux only.
 */
#ifndef JITSYM_WRITER_H
#define JITSYM_WRITER_H

#ifdef __cplusplus
extern "C" {
#endif

#define JITSYM_WRITER_API __attribute__((visibility("default")))

/* Return values: 0 on success, else one of these; errno says more. */
#define JITSYM_OK 0
#define JITSYM_ERR_OPEN (-1)   /* the file could not be created or opened (errno) */
#define JITSYM_ERR_LOCK (-2)   /* the lock could not be created (kept for CPython's
                                  codes: jitsym's locks are static and cannot fail) */
#define JITSYM_ERR_ARG (-3)    /* a bad argument: null address or name, zero size, a
                                  newline in a name, a line entry out of order or
                                  past the code's end (errno = EINVAL); code this
                                  process cannot read (errno = EFAULT: a jitdump
                                  writes only the readable start of a range) */
#define JITSYM_ERR_WRITE (-4)  /* a write failed, e.g. the disk is full (errno); the
                                  file keeps the records before it, no more go to it */
#define JITSYM_ERR_CLOSED (-5) /* the jitdump was closed with jitsym_jitdump_fini
                                  (errno = EBADF) */
#define JITSYM_ERR_UNKNOWN (-6) /* unload of an address the jitdump holds no code at
                                   (errno = ENOENT) */

/* --- Perf map ------------------------------------------------------------ */

/* Opens /tmp/perf-PID.map unless it is open. A map left by an earlier process
   with this PID is emptied first; one this process's runtime already writes is
   appended to. Links are not followed, and a file of another user is refused. */
JITSYM_WRITER_API int jitsym_perf_map_init(void);

/* Appends "START SIZE NAME" (hex) for code at [code_addr, code_addr + code_size).
   Opens the map first if needed. */
JITSYM_WRITER_API int jitsym_perf_map_write(const void *code_addr, unsigned int code_size,
                          const char *entry_name);

/* Closes the map. A later write opens it again and appends. */
JITSYM_WRITER_API void jitsym_perf_map_fini(void);

/* --- Jitdump ------------------------------------------------------------- */

/* One source line of a function: the code from `offset` bytes after the
   function's start up to the next entry's offset (or the function's end) comes
   from `line` of `file`. Entries go in ascending offset order; a null file
   means the previous entry's file. A line of 0 marks code with no line. */
typedef struct jitsym_line {
  unsigned int offset;
  unsigned int line;
  const char *file;
} jitsym_line;

/* Creates DIRECTORY/jit-PID.dump (directory null: $JITDUMPDIR, else /tmp),
   replacing a file of that name, and maps its first page executable, which is
   how perf and jit-sync find it. Does nothing if the dump is open. */
JITSYM_WRITER_API int jitsym_jitdump_init(const char *directory);

/* Writes the code at [code_addr, code_addr + code_size) (its bytes are copied
   into the dump) under `name`, with `line_count` line entries (may be 0).
   Opens the dump in the default directory first if needed. Code written again
   at an address replaces what was there. */
JITSYM_WRITER_API int jitsym_jitdump_write(const void *code_addr, unsigned int code_size, const char *name,
                         const jitsym_line *lines, unsigned int line_count);

/* The code written at `code_addr` is gone (freed, or about to be reused). */
JITSYM_WRITER_API int jitsym_jitdump_unload(const void *code_addr);

/* Writes the end-of-dump record and closes the dump; writes after it fail with
   JITSYM_ERR_CLOSED until jitsym_jitdump_init starts a new dump. */
JITSYM_WRITER_API void jitsym_jitdump_fini(void);

#ifdef __cplusplus
}
#endif

#endif /* JITSYM_WRITER_H */
