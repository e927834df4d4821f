/*
 * stressjit.c - a JIT that announces code as fast as a busy runtime, for the
 * concurrency tests (test/hardening, driven by test/scripts/stress_session.py).
 *
 * The debugged process maps two code regions and calls stress_probe() every
 * --probe-ms, where the debugger stops (and jit-sync runs). A child process it
 * forks, which the debugger does not stop, appends to the parent's perf map
 * and jitdump at --map-rate lines and --dump-rate records a second while the
 * parent is stopped, each batch written in two write(2) calls split at a
 * random byte, so a sync often finds a line or record cut in two.
 *
 * Every name says where its code is: the perf map's line N of generation G
 * names "sG_N_ADDR" at ADDR = map region + 16 * N; the jitdump's record N
 * names "dN_ADDR" in the dump region. A checker can tell from the names alone
 * whether a symbol is torn, lost, duplicated or misplaced.
 *
 * Linux x86-64; libc only.
 */
#define _GNU_SOURCE

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REGION_BYTES ((size_t)64 << 20)
#define SYMBOL_BYTES 16
#define MAX_SYMBOLS (REGION_BYTES / SYMBOL_BYTES)

static struct {
    long map_rate, dump_rate;   /* per second, 0: none */
    double seconds;             /* how long the child writes */
    long probe_ms;              /* 0: no probes */
    long rewrite_at;            /* rewrite the map from scratch after N lines */
    long exec_at_probe;         /* exec (--after-exec) at this probe */
    int append_map;             /* append to an existing map, as CPython does */
    int wait_attach;            /* spin until a debugger attaches */
    int after_exec;
    const char *tag;            /* name prefix instead of "s" */
    const char *self;
} opt = { 0, 0, 1.0, 100, 0, 0, 0, 0, 0, "s", NULL };

volatile long stress_probe_count;

__attribute__((noinline, used)) void stress_probe(long n)
{
    stress_probe_count = n;
    __asm__ volatile("" ::: "memory");
}

static void die(const char *what)
{
    fprintf(stderr, "stressjit: %s: %s\n", what, strerror(errno));
    exit(1);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned char *map_code(void)
{
    void *p = mmap(NULL, REGION_BYTES, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        die("mmap");
    return p;
}

/* Writes all of buf in two write(2) calls split at a random byte, with a pause
   between, so a reader may see the first half alone. */
static void write_torn(int fd, const char *buf, size_t len)
{
    size_t cut = len > 1 ? (size_t)rand() % len : len;
    size_t parts[2][2] = { { 0, cut }, { cut, len } };
    for (int i = 0; i < 2; ++i) {
        size_t at = parts[i][0];
        while (at < parts[i][1]) {
            ssize_t n = write(fd, buf + at, parts[i][1] - at);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                die("write");
            at += (size_t)n;
        }
        if (i == 0)
            sched_yield();
    }
}

/* ---- jitdump records (the perf jitdump format, this machine's byte order) -- */

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

static int open_jitdump(pid_t pid)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "/tmp/jit-%ld.dump", (long)pid);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        die(path);
    char header[40];
    size_t at = 0;
    uint32_t fields[] = { 0x4A695444u, 1, 40, EM_X86_64, 0, (uint32_t)pid };
    for (size_t i = 0; i < 6; ++i)
        at += put(header + at, &fields[i], 4);
    uint64_t time = timestamp(), flags = 0;
    at += put(header + at, &time, 8);
    at += put(header + at, &flags, 8);
    if (write(fd, header, at) != (ssize_t)at)
        die("jitdump header");
    /* The marker perf looks for: an executable mapping of the file. */
    if (mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED)
        die("jitdump marker");
    return fd;
}

static size_t code_load(char *out, pid_t pid, uint64_t index, uint64_t address)
{
    char name[64];
    int name_len = snprintf(name, sizeof name, "d%" PRIu64 "_%" PRIx64, index, address) + 1;
    size_t total = 16 + 4 + 4 + 8 * 4 + (size_t)name_len + SYMBOL_BYTES;
    uint32_t id = 0, size = (uint32_t)total, p = (uint32_t)pid, tid = (uint32_t)pid;
    uint64_t time = timestamp(), code_size = SYMBOL_BYTES;
    size_t at = 0;
    at += put(out + at, &id, 4);
    at += put(out + at, &size, 4);
    at += put(out + at, &time, 8);
    at += put(out + at, &p, 4);
    at += put(out + at, &tid, 4);
    at += put(out + at, &address, 8); /* vma */
    at += put(out + at, &address, 8); /* code_addr */
    at += put(out + at, &code_size, 8);
    at += put(out + at, &index, 8);
    at += put(out + at, name, (size_t)name_len);
    memset(out + at, 0xc3, SYMBOL_BYTES); /* ret */
    return at + SYMBOL_BYTES;
}

/* ---- the writer (a child the debugger does not stop) ---------------------- */

struct files {
    int map, dump;
    unsigned char *map_code, *dump_code;
};

static size_t map_line(char *out, long gen, long n, const unsigned char *code)
{
    uint64_t address = (uint64_t)(uintptr_t)code + (uint64_t)n * SYMBOL_BYTES;
    return (size_t)sprintf(out, "%" PRIx64 " %x %s%ld_%ld_%" PRIx64 "\n", address, SYMBOL_BYTES,
                           opt.tag, gen, n, address);
}

/* Truncates the map and writes lines 0..lines-1 again under a new generation,
   as `jcmd PID Compiler.perfmap` rewrites HotSpot's. */
static void rewrite_map(const struct files *f, long gen, long lines)
{
    if (ftruncate(f->map, 0) != 0)
        die("ftruncate");
    char *buf = malloc((size_t)lines * 64 + 1);
    size_t len = 0;
    for (long n = 0; n < lines; ++n)
        len += map_line(buf + len, gen, n, f->map_code);
    write_torn(f->map, buf, len);
    free(buf);
}

static volatile sig_atomic_t stop_writing;

static void on_stop_signal(int sig)
{
    (void)sig;
    stop_writing = 1;
}

static void write_for(const struct files *f, pid_t pid)
{
    signal(SIGUSR1, on_stop_signal); /* finish the batch, then stop */
    const double start = now(), tick = 0.001;
    long lines = 0, records = 0, gen = 0;
    char *buf = malloc(1 << 20);
    srand((unsigned)getpid());
    for (double next = start; now() - start < opt.seconds && !stop_writing; next += tick) {
        double elapsed = now() - start;
        long want_lines = opt.map_rate ? (long)(elapsed * opt.map_rate) : 0;
        long want_records = opt.dump_rate ? (long)(elapsed * opt.dump_rate) : 0;
        size_t len = 0;
        for (; lines < want_lines && lines < (long)MAX_SYMBOLS && len < (1 << 20) - 128; ++lines)
            len += map_line(buf + len, gen, lines, f->map_code);
        if (len)
            write_torn(f->map, buf, len);
        if (opt.rewrite_at && gen == 0 && lines >= opt.rewrite_at) {
            rewrite_map(f, ++gen, lines);
        }
        len = 0;
        for (; records < want_records && records < (long)MAX_SYMBOLS && len < (1 << 20) - 256;
             ++records)
            len += code_load(buf + len, pid,
                             (uint64_t)records, (uint64_t)(uintptr_t)f->dump_code +
                                                    (uint64_t)records * SYMBOL_BYTES);
        if (len)
            write_torn(f->dump, buf, len);
        double sleep_for = next + tick - now();
        if (sleep_for > 0) {
            struct timespec ts = { 0, (long)(sleep_for * 1e9) };
            nanosleep(&ts, NULL);
        }
    }
    printf("writer: %ld map lines (generation %ld), %ld jitdump records\n", lines, gen, records);
    fflush(stdout);
    free(buf);
}

/* ---- the debugged process --------------------------------------------------- */

static int open_map(pid_t pid)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "/tmp/perf-%ld.map", (long)pid);
    int flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | (opt.append_map ? 0 : O_TRUNC);
    int fd = open(path, flags, 0644);
    if (fd < 0)
        die(path);
    return fd;
}

/* Gives up after two minutes: a driver that died before it attached must not
   leave this process holding its test's output pipe open for ever. */
static void wait_for_debugger(void)
{
    for (int waited_ms = 0;; waited_ms += 10) {
        if (waited_ms >= 120000) {
            fprintf(stderr, "stressjit: no debugger attached in 120 s\n");
            exit(3);
        }
        FILE *status = fopen("/proc/self/status", "r");
        char line[256];
        long tracer = 0;
        while (status && fgets(line, sizeof line, status))
            if (sscanf(line, "TracerPid: %ld", &tracer) == 1)
                break;
        if (status)
            fclose(status);
        if (tracer != 0)
            return;
        usleep(10000);
    }
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static long parse_long(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < 0) {
        fprintf(stderr, "stressjit: not a count: %s\n", s);
        exit(2);
    }
    return v;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: stressjit [--map-rate N] [--dump-rate N] [--seconds S] [--probe-ms M]\n"
            "                 [--rewrite-at N] [--exec-at-probe K] [--append-map]\n"
            "                 [--wait-attach] [--tag T]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    opt.self = argv[0];
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--append-map"))
            opt.append_map = 1;
        else if (!strcmp(a, "--wait-attach"))
            opt.wait_attach = 1;
        else if (!strcmp(a, "--after-exec"))
            opt.after_exec = 1;
        else if (!v)
            usage();
        else if (!strcmp(a, "--map-rate"))
            opt.map_rate = parse_long(argv[++i]);
        else if (!strcmp(a, "--dump-rate"))
            opt.dump_rate = parse_long(argv[++i]);
        else if (!strcmp(a, "--seconds"))
            opt.seconds = atof(argv[++i]);
        else if (!strcmp(a, "--probe-ms"))
            opt.probe_ms = parse_long(argv[++i]);
        else if (!strcmp(a, "--rewrite-at"))
            opt.rewrite_at = parse_long(argv[++i]);
        else if (!strcmp(a, "--exec-at-probe"))
            opt.exec_at_probe = parse_long(argv[++i]);
        else if (!strcmp(a, "--tag"))
            opt.tag = argv[++i];
        else
            usage();
    }
    if (opt.wait_attach)
        wait_for_debugger();

    const pid_t pid = getpid();
    struct files f = { -1, -1, map_code(), map_code() };
    if (opt.after_exec) {
        /* A new program in the same process: its own code, announced by
           appending to the map the old program left. */
        opt.append_map = 1;
        f.map = open_map(pid);
        char buf[256];
        size_t len = 0;
        for (long n = 0; n < 3; ++n)
            len += (size_t)sprintf(buf + len, "%" PRIx64 " %x after_exec_%ld\n",
                                   (uint64_t)(uintptr_t)f.map_code + (uint64_t)n * SYMBOL_BYTES,
                                   SYMBOL_BYTES, n);
        write_torn(f.map, buf, len);
        stress_probe(1);
        return 0;
    }
    f.map = opt.map_rate ? open_map(pid) : -1;
    f.dump = opt.dump_rate ? open_jitdump(pid) : -1;
    printf("stressjit %ld: map region %p, dump region %p\n", (long)pid, (void *)f.map_code,
           (void *)f.dump_code);
    fflush(stdout);

    pid_t writer = fork();
    if (writer < 0)
        die("fork");
    if (writer == 0) {
        write_for(&f, pid);
        _exit(0);
    }
    long probes = 0;
    int status;
    while (waitpid(writer, &status, WNOHANG) == 0) {
        if (opt.probe_ms) {
            sleep_ms(opt.probe_ms);
            stress_probe(++probes);
        } else {
            sleep_ms(10);
        }
        if (opt.exec_at_probe && probes == opt.exec_at_probe) {
            kill(writer, SIGUSR1); /* no line left cut in two */
            waitpid(writer, &status, 0);
            char *args[] = { (char *)opt.self, "--after-exec", NULL };
            execv("/proc/self/exe", args);
            die("exec");
        }
    }
    /* Everything is written: the last stop sees the files whole. */
    stress_probe(-1);
    return 0;
}
