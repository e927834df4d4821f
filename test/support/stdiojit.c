/*
 * stdiojit.c - a JIT that writes its jitdump through a fully buffered stdio
 * FILE, as V8 does, for the tests of the records still in the FILE's buffer
 * (test/lldb/stdio-buffer-*.test, test/hardening/stdio-buffer-stops.test).
 *
 *   stdiojit race    four stops in stdio_stop(N), each called from JIT code:
 *                    0  records 3..6 are only in the FILE's buffer;
 *                    1  glibc's flush done by hand up to its write(2): the
 *                       buffer's bytes are in the file too, its pointers not
 *                       reset (the state a stop can find a real flush in);
 *                    2  pointers reset, records 7..9 written through the FILE,
 *                       7 cut across the file and the buffer;
 *                    3  after fflush: the file holds all ten.
 *                    Function N is "stdio_fn_N".
 *   stdiojit stream RATE [--dsync] [--buffer BYTES]
 *                    compiles RATE functions a second ("stream_fn_N") and
 *                    announces each through the FILE, until killed; the
 *                    buffer is flushed wherever it fills. --dsync opens the
 *                    dump O_DSYNC, so a flush's write(2) takes long and a stop
 *                    often lands right after it, before glibc resets the
 *                    buffer's pointers.
 *
 * The dump is jit-PID.dump in the working directory, mapped executable as perf
 * and V8 do, which is how a debugger finds it. Linux x86-64; libc only.
 */
#define _GNU_SOURCE

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define FUNCTION_BYTES 32
#define MAX_FUNCTIONS (1 << 16)

static FILE *dump;                 /* the driver reads its buffer's pointers */
static char dump_buffer[4096];
static unsigned char *code;        /* MAX_FUNCTIONS functions */
volatile long stdio_stops;

__attribute__((noinline, used)) void stdio_stop(long n)
{
    stdio_stops = n;
    __asm__ volatile("" ::: "memory");
}

static void die(const char *what)
{
    fprintf(stderr, "stdiojit: %s: %s\n", what, strerror(errno));
    exit(1);
}

static uint64_t timestamp(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static size_t put(char *out, const void *value, size_t size)
{
    memcpy(out, value, size);
    return size;
}

/* Function `index`: push rbp; mov rbp,rsp; movabs rax,stdio_stop; call rax;
 * pop rbp; ret - a frame-pointer frame that calls stdio_stop(its argument). */
static void (*emit(long index))(long)
{
    unsigned char *at = code + (size_t)index * FUNCTION_BYTES;
    uint64_t target = (uint64_t)(uintptr_t)stdio_stop;
    unsigned char body[FUNCTION_BYTES];
    memset(body, 0xcc, sizeof body);
    memcpy(body, "\x55\x48\x89\xe5\x48\xb8", 6);
    memcpy(body + 6, &target, 8);
    memcpy(body + 14, "\xff\xd0\x5d\xc3", 4);
    memcpy(at, body, sizeof body);
    __builtin___clear_cache((char *)at, (char *)at + FUNCTION_BYTES);
    return (void (*)(long))(void *)at;
}

/* A record's prefix (id, total size, timestamp) and its pid and tid. */
static size_t record_start(char *out, uint32_t id, uint32_t size)
{
    uint32_t pid = (uint32_t)getpid();
    uint64_t time = timestamp();
    size_t at = 0;
    at += put(out + at, &id, 4);
    at += put(out + at, &size, 4);
    at += put(out + at, &time, 8);
    at += put(out + at, &pid, 4);
    at += put(out + at, &pid, 4);
    return at;
}

/* The CODE_LOAD of function `index` named PREFIX_INDEX, code bytes included. */
static size_t code_load(char *out, const char *prefix, long index)
{
    char name[64];
    size_t name_len = (size_t)snprintf(name, sizeof name, "%s_%ld", prefix, index) + 1;
    uint64_t address = (uint64_t)(uintptr_t)(code + (size_t)index * FUNCTION_BYTES);
    uint64_t code_size = FUNCTION_BYTES, code_index = (uint64_t)index;
    size_t at = record_start(out, 0, (uint32_t)(16 + 8 + 32 + name_len + FUNCTION_BYTES));
    at += put(out + at, &address, 8); /* vma */
    at += put(out + at, &address, 8);
    at += put(out + at, &code_size, 8);
    at += put(out + at, &code_index, 8);
    at += put(out + at, name, name_len);
    at += put(out + at, (const void *)(uintptr_t)address, FUNCTION_BYTES);
    return at;
}

/* The CODE_MOVE of function `from`'s code to slot `to`. */
static size_t code_move(char *out, long from, long to)
{
    uint64_t old_address = (uint64_t)(uintptr_t)(code + (size_t)from * FUNCTION_BYTES);
    uint64_t new_address = (uint64_t)(uintptr_t)(code + (size_t)to * FUNCTION_BYTES);
    uint64_t code_size = FUNCTION_BYTES, code_index = (uint64_t)from;
    size_t at = record_start(out, 1, 16 + 8 + 40);
    at += put(out + at, &new_address, 8); /* vma */
    at += put(out + at, &old_address, 8);
    at += put(out + at, &new_address, 8);
    at += put(out + at, &code_size, 8);
    at += put(out + at, &code_index, 8);
    return at;
}

static void write_through_file(const void *bytes, size_t size)
{
    if (fwrite(bytes, 1, size, dump) != size)
        die("fwrite");
}

static void open_dump(int dsync, size_t buffer_bytes)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "jit-%ld.dump", (long)getpid());
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC | (dsync ? O_DSYNC : 0), 0644);
    if (fd < 0)
        die(path);
    /* The marker perf looks for: an executable mapping of the file. */
    if (mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED)
        die("jitdump marker");
    dump = fdopen(fd, "w+");
    if (!dump)
        die("fdopen");
    if (setvbuf(dump, buffer_bytes ? NULL : dump_buffer, _IOFBF,
                buffer_bytes ? buffer_bytes : sizeof dump_buffer) != 0)
        die("setvbuf");
    char header[40];
    size_t at = 0;
    uint32_t fields[] = { 0x4A695444u, 1, 40, EM_X86_64, 0, (uint32_t)getpid() };
    for (size_t i = 0; i < 6; ++i)
        at += put(header + at, &fields[i], 4);
    uint64_t time = timestamp(), flags = 0;
    at += put(header + at, &time, 8);
    at += put(header + at, &flags, 8);
    write_through_file(header, at);
    code = mmap(NULL, (size_t)MAX_FUNCTIONS * FUNCTION_BYTES, PROT_READ | PROT_WRITE | PROT_EXEC,
                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (code == MAP_FAILED)
        die("mmap");
}

static void race(void)
{
    char record[256];
    void (*fn[10])(long);
    open_dump(0, 0);
    for (long i = 0; i < 10; ++i)
        fn[i] = emit(i);
    for (long i = 0; i < 3; ++i)
        write_through_file(record, code_load(record, "stdio_fn", i));
    fflush(dump);
    for (long i = 3; i < 7; ++i)
        write_through_file(record, code_load(record, "stdio_fn", i));
    size_t seventh = code_load(record, "stdio_fn", 7);
    write_through_file(record, 8); /* its id and size only */
    fn[5](0);

    /* glibc's _IO_new_file_write, without new_do_write's reset after it. */
    const char *base = dump->_IO_write_base;
    size_t pending = (size_t)(dump->_IO_write_ptr - dump->_IO_write_base);
    if (write(fileno(dump), base, pending) != (ssize_t)pending)
        die("write");
    fn[6](1);

    dump->_IO_write_ptr = dump->_IO_write_base; /* the reset */
    write_through_file(record + 8, seventh - 8);
    for (long i = 8; i < 10; ++i)
        write_through_file(record, code_load(record, "stdio_fn", i));
    fn[9](2);
    fflush(dump);
    fn[9](3);
    fclose(dump);
}

static void move(void)
{
    char record[256];
    open_dump(0, 0);
    void (*first)(long) = emit(0);
    emit(1);
    for (long i = 0; i < 2; ++i)
        write_through_file(record, code_load(record, "stdio_fn", i));
    fflush(dump);
    printf("stdiojit: stdio_fn_0 at %p\n", (void *)first);
    first(0);
    unsigned char *old_code = code, *new_code = code + 2 * FUNCTION_BYTES;
    memcpy(new_code, old_code, FUNCTION_BYTES);
    __builtin___clear_cache((char *)new_code, (char *)new_code + FUNCTION_BYTES);
    write_through_file(record, code_move(record, 0, 2));
    fflush(dump);
    memset(old_code, 0xcc, FUNCTION_BYTES);
    printf("stdiojit: stdio_fn_0 moved to %p\n", (void *)new_code);
    fflush(stdout);
    ((void (*)(long))(void *)new_code)(1);
    fclose(dump);
}

static void stream(long rate, int dsync, size_t buffer_bytes)
{
    char record[256];
    open_dump(dsync, buffer_bytes);
    printf("stdiojit %ld: dump jit-%ld.dump\n", (long)getpid(), (long)getpid());
    fflush(stdout);
    uint64_t started = timestamp();
    long written = 0;
    for (;;) {
        double elapsed = (double)(timestamp() - started) / 1e9;
        long want = (long)(elapsed * (double)rate);
        if (want > MAX_FUNCTIONS)
            want = MAX_FUNCTIONS;
        for (; written < want; ++written) {
            emit(written);
            write_through_file(record, code_load(record, "stream_fn", written));
        }
        struct timespec tick = { 0, 1000000 };
        nanosleep(&tick, NULL);
    }
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "race")) {
        race();
        return 0;
    }
    if (argc >= 2 && !strcmp(argv[1], "move")) {
        move();
        return 0;
    }
    if (argc >= 3 && !strcmp(argv[1], "stream")) {
        long rate = strtol(argv[2], NULL, 10);
        int dsync = 0;
        size_t buffer_bytes = 0;
        for (int i = 3; i < argc; ++i) {
            if (!strcmp(argv[i], "--dsync"))
                dsync = 1;
            else if (!strcmp(argv[i], "--buffer") && i + 1 < argc)
                buffer_bytes = (size_t)strtoul(argv[++i], NULL, 10);
        }
        if (rate > 0) {
            stream(rate, dsync, buffer_bytes);
            return 0;
        }
    }
    fprintf(stderr, "usage: stdiojit race | stdiojit move | stdiojit stream RATE [--dsync] [--buffer BYTES]\n");
    return 2;
}
