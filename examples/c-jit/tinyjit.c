/*
 * tinyjit.c - a tiny x86-64 and aarch64 JIT used to exercise jitsym.
 *
 * It emits real machine code into an anonymous mmap'd region, records every
 * function in a perf map (/tmp/perf-<pid>.map), and calls into the generated
 * code so that a debugger stopped in jit_probe() sees JIT frames between
 * jit_probe and main.  See README.md for the full output contract.
 *
 * Linux on x86-64 or aarch64; libc only.
 * Build: cc -O0 -g -o tinyjit tinyjit.c
 *        (aarch64: aarch64-linux-gnu-gcc -O0 -g -static -o tinyjit tinyjit.c)
 */
#define _GNU_SOURCE

#if !(defined(__x86_64__) || defined(__aarch64__)) || !defined(__linux__)
#error "tinyjit supports Linux on x86-64 and aarch64"
#endif

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define REGION_SIZE   ((size_t)1 << 20) /* 1 MiB code region */
#define SLOT_SIZE     ((size_t)256)     /* functions live at 256-byte slots */
#define SLOT_COUNT    (REGION_SIZE / SLOT_SIZE)
#define MAX_PHASES    ((int)((SLOT_COUNT - 2) / 2)) /* phase k uses slot 2k+1 */
#define BULK_FN_SIZE  ((size_t)16)
#define MAX_BULK      10000000L

/* ------------------------------------------------------------------------ */
/* The probe: debuggers put a breakpoint here.                               */

volatile int jit_probe_last_phase;
static int crash_at_phase; /* --crash-at: 0 = never */
static long probe_sleep_ms; /* --probe-sleep-ms: 0 = none */

static void sleep_ms(long ms);

__attribute__((noinline, used)) void jit_probe(int phase)
{
    jit_probe_last_phase = phase;
    if (phase == crash_at_phase)
        *(volatile int *)(uintptr_t)phase = 0; /* SIGSEGV with JIT frames below */
    if (probe_sleep_ms > 0)
        sleep_ms(probe_sleep_ms); /* an interrupt finds JIT frames below */
}

/* ------------------------------------------------------------------------ */
/* Options and global state.                                                 */

static struct {
    int phases;
    long sleep_ms;
    int hex_0x;          /* --map-form 0x */
    long bulk;
    const char *map_path;
    const char *map_dir;
    const char *android_app;
    int split_runs;      /* --split-runs */
    size_t bulk_stride;  /* --bulk-stride */
    const char *map_call; /* --map-call: write, writev, pwrite or pwritev */
    int frameless_from;  /* --frameless-from: first phase without frame pointers */
} opt = { 3, 0, 0, 0, NULL, NULL, NULL, 0, BULK_FN_SIZE, "write", 0 };

static int map_fd = -1;
static unsigned char *region; /* main 1 MiB code region */

static void die(const char *what)
{
    fprintf(stderr, "tinyjit: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: tinyjit [--phases N] [--sleep-ms M] [--map-form plain|0x]\n"
            "               [--bulk N] [--bulk-stride B] [--map PATH | --map-dir DIR]\n"
            "               [--crash-at N] [--probe-sleep-ms M]\n"
            "               [--split-runs] [--map-call write|writev|pwrite|pwritev]\n"
            "               [--frameless-from N]\n"
            "  --phases N      number of JIT phases to run (1..%d, default 3)\n"
            "  --sleep-ms M    sleep M milliseconds between phases (default 0)\n"
            "  --map-form F    'plain' (default, like Node) or '0x' (like HotSpot)\n"
            "  --bulk N        emit N dummy functions jit_bulk_<i> before phase 1\n"
            "  --bulk-stride B place them B bytes apart (16..1048576, default 16)\n"
            "  --map PATH      perf map path (default /tmp/perf-<pid>.map)\n"
            "  --map-dir DIR   perf map at DIR/perf-<pid>.map (Android: /data/local/tmp,\n"
            "                  or an app's /data/data/<package>)\n"
            "  --android-app P be named P as Android's zygote names an app process (its\n"
            "                  command line becomes P) and write the map where an app\n"
            "                  does: /data/data/P/perf-<pid>.map\n"
            "  --crash-at N    crash (SIGSEGV in jit_probe, called from JIT code) in phase N\n"
            "  --probe-sleep-ms M  jit_probe sleeps M milliseconds in every phase, its\n"
            "                  JIT callers below it (for interrupting it)\n"
            "  --split-runs    map a file page between phase 1's code and the later phases'\n"
            "                  code: two runs of JIT memory in one 1 MiB window\n"
            "  --map-call C    append each map line with write (default), writev (name\n"
            "                  and newline apart), pwrite or pwritev (at the map's end)\n"
            "  --frameless-from N  phase N and later compile code that keeps no frame\n"
            "                  pointer (x86-64: sub rsp, 8 first, rbp untouched, as Mono's\n"
            "                  does; aarch64: str x30, [sp, #-16]!, x29 untouched)\n",
            MAX_PHASES);
}

static void bad_args(const char *msg, const char *arg)
{
    fprintf(stderr, "tinyjit: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
    usage(stderr);
    exit(2);
}

static long parse_long(const char *s, long lo, long hi, const char *name)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
        bad_args("invalid value for", name);
    return v;
}

/* ------------------------------------------------------------------------ */
/* Perf map.                                                                 */

static void map_open(void)
{
    char def[PATH_MAX];
    const char *path = opt.map_path;

    if (path == NULL) {
        snprintf(def, sizeof def, "%s/perf-%ld.map", opt.map_dir ? opt.map_dir : "/tmp",
                 (long)getpid());
        path = def;
    }
    /* A new map, as runtimes start one: a map left by an earlier process that
       had this PID is not ours to extend. */
    map_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (map_fd < 0)
        die(path);
}

/* Append one "START SIZE name\n" line with a single write(). */
static void map_add(uintptr_t start, size_t size, const char *name)
{
    char line[256];
    int n;

    if (opt.hex_0x)
        n = snprintf(line, sizeof line, "0x%016" PRIxPTR " 0x%016zx %s\n",
                     start, size, name);
    else
        n = snprintf(line, sizeof line, "%" PRIxPTR " %zx %s\n",
                     start, size, name);
    if (n < 0 || (size_t)n >= sizeof line) {
        fprintf(stderr, "tinyjit: map line too long\n");
        exit(1);
    }
    ssize_t written;
    struct iovec parts[2] = {{line, (size_t)n - 1}, {line + n - 1, 1}};
    off_t end = lseek(map_fd, 0, SEEK_END);
    if (!strcmp(opt.map_call, "writev"))
        written = writev(map_fd, parts, 2);
    else if (!strcmp(opt.map_call, "pwrite"))
        written = pwrite(map_fd, line, (size_t)n, end);
    else if (!strcmp(opt.map_call, "pwritev"))
        written = pwritev(map_fd, parts, 2, end);
    else
        written = write(map_fd, line, (size_t)n);
    if (written != (ssize_t)n)
        die("write perf map");
}

/* ------------------------------------------------------------------------ */
/* Code emission.                                                            */

struct emitter {
    unsigned char *p;
    size_t len;
    size_t cap;
};

static void emit_bytes(struct emitter *e, const void *bytes, size_t n)
{
    if (e->len + n > e->cap) {
        fprintf(stderr, "tinyjit: function does not fit its slot\n");
        exit(1);
    }
    memcpy(e->p + e->len, bytes, n);
    e->len += n;
}

static void emit_u8(struct emitter *e, unsigned v)
{
    unsigned char b = (unsigned char)v;
    emit_bytes(e, &b, 1);
}

static void emit_le(struct emitter *e, uint64_t v, int nbytes)
{
    for (int i = 0; i < nbytes; i++)
        emit_u8(e, (unsigned)((v >> (8 * i)) & 0xff));
}

#if defined(__x86_64__)

/* Filler that traps if run: int3. */
static void fill_traps(unsigned char *p, size_t n) { memset(p, 0xcc, n); }

static void emit_prologue(struct emitter *e)
{
    emit_u8(e, 0x55);                               /* push rbp      */
    emit_u8(e, 0x48); emit_u8(e, 0x89); emit_u8(e, 0xe5); /* mov rbp,rsp */
}

static void emit_epilogue(struct emitter *e)
{
    emit_u8(e, 0x5d);                               /* pop rbp       */
    emit_u8(e, 0xc3);                               /* ret           */
}

/* Code that keeps no frame pointer: sub rsp, 8 (the stack stays aligned for
   the call) ... add rsp, 8; ret. rbp stays the caller's. */
static void emit_frameless_prologue(struct emitter *e)
{
    emit_u8(e, 0x48); emit_u8(e, 0x83); emit_u8(e, 0xec); emit_u8(e, 0x08);
}

static void emit_frameless_epilogue(struct emitter *e)
{
    emit_u8(e, 0x48); emit_u8(e, 0x83); emit_u8(e, 0xc4); emit_u8(e, 0x08);
    emit_u8(e, 0xc3);
}

static void emit_call_abs(struct emitter *e, uintptr_t target)
{
    emit_u8(e, 0x48); emit_u8(e, 0xb8);             /* mov rax, imm64 */
    emit_le(e, (uint64_t)target, 8);
    emit_u8(e, 0xff); emit_u8(e, 0xd0);             /* call rax       */
}

/* The first argument: mov edi, imm32. */
static void emit_first_argument(struct emitter *e, uint32_t value)
{
    emit_u8(e, 0xbf);
    emit_le(e, value, 4);
}

/* A different-looking leaf (for the slot-reuse phase):
 *   push rbp; mov rbp,rsp; sub rsp,16; mov dword [rbp-4],phase;
 *   mov edi,[rbp-4]; mov rax,jit_probe; call rax; add rsp,16; pop rbp; ret */
static void emit_reused_leaf(struct emitter *e, uint32_t phase)
{
    emit_prologue(e);
    emit_u8(e, 0x48); emit_u8(e, 0x83); emit_u8(e, 0xec); emit_u8(e, 0x10);
    emit_u8(e, 0xc7); emit_u8(e, 0x45); emit_u8(e, 0xfc);
    emit_le(e, phase, 4);
    emit_u8(e, 0x8b); emit_u8(e, 0x7d); emit_u8(e, 0xfc);
    emit_call_abs(e, (uintptr_t)&jit_probe);
    emit_u8(e, 0x48); emit_u8(e, 0x83); emit_u8(e, 0xc4); emit_u8(e, 0x10);
    emit_epilogue(e);
}

#else /* __aarch64__: fixed 4-byte instructions */

static void emit_insn(struct emitter *e, uint32_t insn) { emit_le(e, insn, 4); }

/* Filler that traps if run: brk #0. */
static void fill_traps(unsigned char *p, size_t n)
{
    for (size_t i = 0; i + 4 <= n; i += 4) {
        const uint32_t brk = 0xd4200000;
        memcpy(p + i, &brk, 4);
    }
}

static void emit_prologue(struct emitter *e)
{
    emit_insn(e, 0xa9bf7bfd);                       /* stp x29, x30, [sp, #-16]! */
    emit_insn(e, 0x910003fd);                       /* mov x29, sp               */
}

static void emit_epilogue(struct emitter *e)
{
    emit_insn(e, 0xa8c17bfd);                       /* ldp x29, x30, [sp], #16   */
    emit_insn(e, 0xd65f03c0);                       /* ret                       */
}

/* Code that keeps no frame pointer: the link register saved alone
   (str x30, [sp, #-16]!) ... ldr x30, [sp], #16; ret. x29 stays the caller's. */
static void emit_frameless_prologue(struct emitter *e)
{
    emit_insn(e, 0xf81f0ffe);
}

static void emit_frameless_epilogue(struct emitter *e)
{
    emit_insn(e, 0xf84107fe);
    emit_insn(e, 0xd65f03c0);
}

/* movz/movk x16 with the address, then blr x16. */
static void emit_call_abs(struct emitter *e, uintptr_t target)
{
    uint64_t t = (uint64_t)target;
    emit_insn(e, 0xd2800010 | (uint32_t)((t & 0xffff) << 5));
    for (uint32_t hw = 1; hw < 4; hw++)
        emit_insn(e, 0xf2800010 | (hw << 21) | (uint32_t)(((t >> (16 * hw)) & 0xffff) << 5));
    emit_insn(e, 0xd63f0200);
}

/* The first argument: movz w0, #value (16 bits are enough for a phase). */
static void emit_first_argument(struct emitter *e, uint32_t value)
{
    emit_insn(e, 0x52800000 | ((value & 0xffff) << 5));
}

/* A different-looking leaf (for the slot-reuse phase):
 *   stp x29, x30, [sp, #-32]!; mov x29, sp; movz w0, #phase;
 *   str w0, [x29, #28]; ldr w0, [x29, #28]; (call jit_probe);
 *   ldp x29, x30, [sp], #32; ret */
static void emit_reused_leaf(struct emitter *e, uint32_t phase)
{
    emit_insn(e, 0xa9be7bfd);
    emit_insn(e, 0x910003fd);
    emit_first_argument(e, phase);
    emit_insn(e, 0xb9001fa0);
    emit_insn(e, 0xb9401fa0);
    emit_call_abs(e, (uintptr_t)&jit_probe);
    emit_insn(e, 0xa8c27bfd);
    emit_insn(e, 0xd65f03c0);
}

#endif

/* --split-runs: a page of a file mapped at SPLIT_FILE_PAGE cuts the region in
   two runs of anonymous memory in one 1 MiB window; the slots of phase 2 and
   later start at SPLIT_SECOND_RUN, in the second run. */
#define SPLIT_FILE_PAGE  ((size_t)0x1000)
#define SPLIT_SECOND_RUN ((size_t)0x2000)

static unsigned char *slot_addr(int slot)
{
    size_t offset = (size_t)slot * SLOT_SIZE;
    if (opt.split_runs && slot >= 2)
        offset += SPLIT_SECOND_RUN;
    return region + offset;
}

/* The region's anonymous memory (both runs with --split-runs) gets `prot`. */
static void region_protect(int prot, const char *what)
{
    if (!opt.split_runs) {
        if (mprotect(region, REGION_SIZE, prot) != 0)
            die(what);
        return;
    }
    if (mprotect(region, SPLIT_FILE_PAGE, prot) != 0 ||
        mprotect(region + SPLIT_SECOND_RUN, REGION_SIZE - SPLIT_SECOND_RUN, prot) != 0)
        die(what);
}

/* Make the whole region writable (and not executable) / executable again. */
static void region_writable(void)
{
    region_protect(PROT_READ | PROT_WRITE, "mprotect RW");
}

static void region_executable(void)
{
    __builtin___clear_cache((char *)region, (char *)region + REGION_SIZE);
    region_protect(PROT_READ | PROT_EXEC, "mprotect RX");
}

/* A 1 MiB region aligned to 1 MiB (one window), with the executable's first
   page mapped over its second page. */
static unsigned char *map_split_region(void)
{
    unsigned char *reserve = mmap(NULL, 2 * REGION_SIZE, PROT_READ | PROT_WRITE,
                                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (reserve == MAP_FAILED)
        die("mmap code region");
    uintptr_t aligned = ((uintptr_t)reserve + REGION_SIZE - 1) & ~(uintptr_t)(REGION_SIZE - 1);
    unsigned char *start = (unsigned char *)aligned;
    if (start > reserve)
        munmap(reserve, (size_t)(start - reserve));
    munmap(start + REGION_SIZE, (size_t)(reserve + 2 * REGION_SIZE - (start + REGION_SIZE)));
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        die("open /proc/self/exe");
    if (mmap(start + SPLIT_FILE_PAGE, SPLIT_SECOND_RUN - SPLIT_FILE_PAGE, PROT_READ,
             MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED)
        die("mmap the file page");
    close(fd);
    return start;
}

static struct emitter slot_begin(int slot)
{
    struct emitter e = { slot_addr(slot), 0, SLOT_SIZE };
    fill_traps(e.p, SLOT_SIZE); /* also wipes old code */
    return e;
}

/* fn: push rbp; mov rbp,rsp; mov rax,callee; call rax; pop rbp; ret
 * (frameless: sub rsp,8; ...; add rsp,8; ret) */
static size_t compile_caller(int slot, uintptr_t callee, int frameless)
{
    struct emitter e = slot_begin(slot);
    if (frameless)
        emit_frameless_prologue(&e);
    else
        emit_prologue(&e);
    emit_call_abs(&e, callee);
    if (frameless)
        emit_frameless_epilogue(&e);
    else
        emit_epilogue(&e);
    return e.len;
}

/* fn: push rbp; mov rbp,rsp; mov edi,phase; mov rax,jit_probe; call rax;
 *     pop rbp; ret (frameless: as compile_caller) */
static size_t compile_probe_leaf(int slot, int phase, int frameless)
{
    struct emitter e = slot_begin(slot);
    if (frameless)
        emit_frameless_prologue(&e);
    else
        emit_prologue(&e);
    emit_first_argument(&e, (uint32_t)phase);
    emit_call_abs(&e, (uintptr_t)&jit_probe);
    if (frameless)
        emit_frameless_epilogue(&e);
    else
        emit_epilogue(&e);
    return e.len;
}

/* A different-looking leaf (for the slot-reuse phase): emit_reused_leaf. */
static size_t compile_reused_leaf(int slot, int phase)
{
    struct emitter e = slot_begin(slot);
    emit_reused_leaf(&e, (uint32_t)phase);
    return e.len;
}

/* ------------------------------------------------------------------------ */
/* Bulk dummy functions (second region).                                     */

static void emit_bulk(long n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t bytes = (size_t)n * opt.bulk_stride;
    size_t size = (bytes + page - 1) / page * page;
    unsigned char *bulk;
    char name[64];

    bulk = mmap(NULL, size, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (bulk == MAP_FAILED)
        die("mmap bulk region");
    fill_traps(bulk, size);
    for (long i = 0; i < n; i++) {
        struct emitter e = { bulk + (size_t)i * opt.bulk_stride, 0, BULK_FN_SIZE };
        emit_prologue(&e);
        emit_epilogue(&e);
        fill_traps(e.p + e.len, BULK_FN_SIZE - e.len); /* the rest traps */
        e.len = BULK_FN_SIZE;
    }
    __builtin___clear_cache((char *)bulk, (char *)bulk + size);
    if (mprotect(bulk, size, PROT_READ | PROT_EXEC) != 0)
        die("mprotect bulk RX");
    for (long i = 0; i < n; i++) {
        snprintf(name, sizeof name, "jit_bulk_%ld", i);
        map_add((uintptr_t)(bulk + (size_t)i * opt.bulk_stride), BULK_FN_SIZE,
                name);
    }
}

/* ------------------------------------------------------------------------ */
/* Phases.                                                                   */

typedef void (*jit_fn)(void);

/* Compile phase k, log it in the perf map and print its addresses.
 * Returns the entry point; main() calls it so that the backtrace at
 * jit_probe is: jit_probe, <leaf>, <entry>, main. */
static jit_fn compile_phase(int k)
{
    int entry_slot, leaf_slot;
    char entry_name[64], leaf_name[64];
    size_t entry_len, leaf_len;
    uintptr_t entry, leaf;

    if (k == 1) {
        entry_slot = 0; leaf_slot = 1;
    } else if (k == 2) {
        entry_slot = 2; leaf_slot = 3;
    } else if (k == 3) {
        entry_slot = 4; leaf_slot = 1; /* reuse the old jit_phase1_leaf slot */
    } else {
        entry_slot = 2 * k; leaf_slot = 2 * k + 1;
    }
    snprintf(entry_name, sizeof entry_name, "jit_phase%d_entry", k);
    if (k == 3)
        snprintf(leaf_name, sizeof leaf_name, "jit_phase3_reused");
    else
        snprintf(leaf_name, sizeof leaf_name, "jit_phase%d_leaf", k);

    entry = (uintptr_t)slot_addr(entry_slot);
    leaf = (uintptr_t)slot_addr(leaf_slot);

    const int frameless = opt.frameless_from > 0 && k >= opt.frameless_from;
    region_writable();
    if (k == 3 && !frameless)
        leaf_len = compile_reused_leaf(leaf_slot, k);
    else
        leaf_len = compile_probe_leaf(leaf_slot, k, frameless);
    entry_len = compile_caller(entry_slot, leaf, frameless);
    region_executable();

    /* Code is in place: log it before it is ever run. */
    map_add(leaf, leaf_len, leaf_name);
    map_add(entry, entry_len, entry_name);

    printf("phase %d: entry=0x%" PRIxPTR " leaf=0x%" PRIxPTR "\n",
           k, entry, leaf);
    fflush(stdout);

    return (jit_fn)entry;
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* ------------------------------------------------------------------------ */

static int known_option(const char *name)
{
    static const char *const names[] = {
        "--phases", "--sleep-ms", "--probe-sleep-ms", "--bulk", "--bulk-stride", "--map", "--map-dir", "--map-form", "--crash-at",
        "--android-app", "--frameless-from",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0)
            return 1;
    return 0;
}

static void parse_args(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
        const char *eq;
        char name[32];

        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            usage(stdout);
            exit(0);
        }
        if (strcmp(a, "--split-runs") == 0) {
            opt.split_runs = 1;
            continue;
        }
        if (strcmp(a, "--map-call") == 0 && i + 1 < argc) {
            const char *c = argv[++i];
            if (strcmp(c, "write") && strcmp(c, "writev") && strcmp(c, "pwrite") &&
                strcmp(c, "pwritev"))
                bad_args("--map-call takes write, writev, pwrite or pwritev", c);
            opt.map_call = c;
            continue;
        }
        if (strncmp(a, "--", 2) != 0)
            bad_args("unexpected argument", a);
        eq = strchr(a, '=');
        if (eq != NULL) {
            size_t n = (size_t)(eq - a);
            if (n >= sizeof name)
                bad_args("unknown option", a);
            memcpy(name, a, n);
            name[n] = '\0';
            val = eq + 1;
        } else {
            if (strlen(a) >= sizeof name)
                bad_args("unknown option", a);
            strcpy(name, a);
            if (!known_option(name))
                bad_args("unknown option", name);
            if (i + 1 >= argc)
                bad_args("missing value for", a);
            val = argv[++i];
        }

        if (strcmp(name, "--phases") == 0)
            opt.phases = (int)parse_long(val, 1, MAX_PHASES, name);
        else if (strcmp(name, "--sleep-ms") == 0)
            opt.sleep_ms = parse_long(val, 0, LONG_MAX / 1000000L, name);
        else if (strcmp(name, "--probe-sleep-ms") == 0)
            probe_sleep_ms = parse_long(val, 0, LONG_MAX / 1000000L, name);
        else if (strcmp(name, "--frameless-from") == 0)
            opt.frameless_from = (int)parse_long(val, 1, MAX_PHASES, name);
        else if (strcmp(name, "--crash-at") == 0)
            crash_at_phase = (int)parse_long(val, 1, MAX_PHASES, name);
        else if (strcmp(name, "--bulk") == 0)
            opt.bulk = parse_long(val, 0, MAX_BULK, name);
        else if (strcmp(name, "--bulk-stride") == 0)
            opt.bulk_stride = (size_t)parse_long(val, BULK_FN_SIZE, 1L << 20, name);
        else if (strcmp(name, "--map") == 0) {
            if (*val == '\0')
                bad_args("empty value for", name);
            opt.map_path = val;
        } else if (strcmp(name, "--map-dir") == 0) {
            if (*val == '\0' || strlen(val) > PATH_MAX - 32)
                bad_args("empty or too long value for", name);
            opt.map_dir = val;
        } else if (strcmp(name, "--android-app") == 0) {
            if (*val == '\0' || strchr(val, '/') || strlen(val) > 200)
                bad_args("not a package name:", val);
            opt.android_app = val;
        } else if (strcmp(name, "--map-form") == 0) {
            if (strcmp(val, "0x") == 0)
                opt.hex_0x = 1;
            else if (strcmp(val, "plain") == 0)
                opt.hex_0x = 0;
            else
                bad_args("invalid value for --map-form", val);
        } else
            bad_args("unknown option", name);
    }
}

/* What Android's zygote does to an app process: its argument area (what
   /proc/PID/cmdline shows) becomes the package name. */
static void rename_as_android_app(int argc, char **argv)
{
    static char map_dir[PATH_MAX];
    char *end = argv[argc - 1] + strlen(argv[argc - 1]) + 1;
    size_t area = (size_t)(end - argv[0]);
    size_t len = strlen(opt.android_app);

    snprintf(map_dir, sizeof map_dir, "/data/data/%s", opt.android_app);
    if (opt.map_dir == NULL)
        opt.map_dir = map_dir;
    if (len + 1 > area)
        return; /* the arguments left no room: keep the name */
    memmove(argv[0], opt.android_app, len + 1);
    memset(argv[0] + len + 1, 0, area - len - 1);
}

int main(int argc, char **argv)
{
    parse_args(argc, argv);
    if (opt.android_app)
        rename_as_android_app(argc, argv);
    map_open();

    if (opt.split_runs) {
        region = map_split_region();
        fill_traps(region, SPLIT_FILE_PAGE);
        fill_traps(region + SPLIT_SECOND_RUN, REGION_SIZE - SPLIT_SECOND_RUN);
    } else {
        region = mmap(NULL, REGION_SIZE, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (region == MAP_FAILED)
            die("mmap code region");
        fill_traps(region, REGION_SIZE);
    }
    region_executable();

    if (opt.bulk > 0)
        emit_bulk(opt.bulk);

    for (int k = 1; k <= opt.phases; k++) {
        if (k > 1 && opt.sleep_ms > 0)
            sleep_ms(opt.sleep_ms);
        jit_fn entry = compile_phase(k);
        entry(); /* called directly from main */
    }

    close(map_fd);
    printf("done\n");
    fflush(stdout);
    return 0;
}
