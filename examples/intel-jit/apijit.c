/*
 * apijit.c - a tiny x86-64 and aarch64 JIT that reports its code through the Intel JIT
 * profiling API (iJIT_NotifyEvent), as engines built with that API do. Run it
 * with INTEL_JIT_PROFILER64 naming jitsym's collector and LLDB names its
 * frames, with source lines of program.mini (see README.md).
 *
 * What it does, in order (each step printed on stdout):
 *   1. compiles compute(n) of program.mini and reports it with
 *      METHOD_LOAD_FINISHED_V2 (module "apijit") and a line table, then
 *      square(x), inlined into compute, with METHOD_INLINE_LOAD_FINISHED;
 *   2. compiles step(n), reports it (METHOD_LOAD_FINISHED), calls it:
 *      step -> compute -> apijit_probe(9)          (breakpoint: phase 1)
 *   3. recompiles step elsewhere and reports METHOD_UPDATE, calls it:
 *      step -> compute -> apijit_probe(16)         (phase 2)
 *   4. compiles a scratch function, reports it, frees it (METHOD_UNLOAD_START),
 *      then calls apijit_probe(3) from C            (phase 3)
 *   5. SHUTDOWN.
 * --bad-events sends events a collector must reject, instead of the above.
 * --threads N --methods M: N threads report M functions each at once.
 *
 * Linux on x86-64 or aarch64. Build: see CMakeLists.txt (links ijit_stub.c);
 * for aarch64, cross/CMakeLists.txt (dynamic: the stub dlopen()s the
 * collector; run it under qemu-user with the cross libraries).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "jitsym/jitprofiling.h"

#if !defined(__x86_64__) && !defined(__aarch64__)
#error "apijit generates x86-64 or aarch64 code"
#endif

#ifndef APIJIT_SOURCE
#define APIJIT_SOURCE "program.mini"
#endif

volatile int apijit_probe_last;

__attribute__((noinline, used)) void apijit_probe(int value)
{
    apijit_probe_last = value;
}

static uint8_t *region;
static const size_t kRegionSize = (size_t)1 << 20;
static char source_path[4096] = APIJIT_SOURCE;

static uint8_t *emit(size_t at, const uint8_t *code, size_t size)
{
    memcpy(region + at, code, size);
    __builtin___clear_cache((char *)region + at, (char *)region + at + size);
    return region + at;
}

#if defined(__x86_64__)
static void put_address(uint8_t *code, size_t at, const void *address)
{
    uint64_t value = (uint64_t)(uintptr_t)address;
    memcpy(code + at, &value, sizeof value);
}
#else
/* movz/movk x16 at `at`, four instructions, with the address. */
static void put_address(uint8_t *code, size_t at, const void *address)
{
    uint64_t value = (uint64_t)(uintptr_t)address;
    for (uint32_t hw = 0; hw < 4; ++hw) {
        uint32_t insn = (hw == 0 ? 0xd2800010u : 0xf2800010u) | (hw << 21) |
                        (uint32_t)(((value >> (16 * hw)) & 0xffff) << 5);
        memcpy(code + at + 4 * hw, &insn, sizeof insn);
    }
}
#endif

static void report(iJIT_JVM_EVENT event, void *data, const char *what)
{
    int result = iJIT_NotifyEvent(event, data);
    printf("apijit: %s -> %d\n", what, result);
    fflush(stdout);
}

/* compute(n): a = n * n (square, inlined); apijit_probe(a); return a + 1.
 * step(n): return compute(n). With each, where its lines end (each Offset
 * ends its range, see jitprofiling.h) and where square is inlined. */
#if defined(__x86_64__)
static uint8_t *compile_compute(size_t at)
{
    uint8_t code[] = {
        0x55,                         /* 00 push rbp            line 4 */
        0x48, 0x89, 0xe5,             /* 01 mov rbp, rsp               */
        0x53,                         /* 04 push rbx                   */
        0x48, 0x83, 0xec, 0x08,       /* 05 sub rsp, 8                 */
        0x89, 0xf8,                   /* 09 mov eax, edi        square: line 3 */
        0x0f, 0xaf, 0xc7,             /* 0b imul eax, edi              */
        0x89, 0xc3,                   /* 0e mov ebx, eax        line 5 */
        0x89, 0xc7,                   /* 10 mov edi, eax        line 6 */
        0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, /* 12 movabs rax, apijit_probe */
        0xff, 0xd0,                   /* 1c call rax                   */
        0x8d, 0x43, 0x01,             /* 1e lea eax, [rbx+1]    line 7 */
        0x48, 0x83, 0xc4, 0x08,       /* 21 add rsp, 8                 */
        0x5b,                         /* 25 pop rbx                    */
        0x5d,                         /* 26 pop rbp                    */
        0xc3,                         /* 27 ret                        */
    };
    put_address(code, 0x14, (void *)apijit_probe);
    return emit(at, code, sizeof code);
}
enum { kComputeSize = 0x28, kSquareAt = 0x09, kSquareSize = 5, kStepSize = 0x12 };
static LineNumberInfo compute_lines[] = {{0x09, 4}, {0x10, 5}, {0x1e, 6}, {0x28, 7}};
static LineNumberInfo square_lines[] = {{0x05, 3}};
static LineNumberInfo step_lines[] = {{0x04, 8}, {0x12, 9}};

static uint8_t *compile_step(size_t at, const uint8_t *compute)
{
    uint8_t code[] = {
        0x55,                         /* 00 push rbp            line 8 */
        0x48, 0x89, 0xe5,             /* 01 mov rbp, rsp               */
        0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, /* 04 movabs rax, compute line 9 */
        0xff, 0xd0,                   /* 0e call rax                   */
        0x5d,                         /* 10 pop rbp                    */
        0xc3,                         /* 11 ret                        */
    };
    put_address(code, 0x06, compute);
    return emit(at, code, sizeof code);
}

static const uint8_t kReturn[] = {0x31, 0xc0, 0xc3}; /* xor eax, eax; ret */
static const uint8_t kGone = 0xcc;                    /* int3 */
#else
#define A64(insn) (uint8_t)(insn), (uint8_t)((insn) >> 8), (uint8_t)((insn) >> 16), \
                  (uint8_t)((insn) >> 24)
static uint8_t *compile_compute(size_t at)
{
    uint8_t code[] = {
        A64(0xa9be7bfd), /* 00 stp x29, x30, [sp, #-32]!   line 4 */
        A64(0x910003fd), /* 04 mov x29, sp                        */
        A64(0xf9000bf3), /* 08 str x19, [sp, #16]                 */
        A64(0x1b007c00), /* 0c mul w0, w0, w0        square: line 3 */
        A64(0x2a0003f3), /* 10 mov w19, w0                 line 5 */
        A64(0xd2800010), /* 14 movz/movk x16, apijit_probe line 6 */
        A64(0xf2a00010), A64(0xf2c00010), A64(0xf2e00010),
        A64(0xd63f0200), /* 24 blr x16                            */
        A64(0x11000660), /* 28 add w0, w19, #1             line 7 */
        A64(0xf9400bf3), /* 2c ldr x19, [sp, #16]                 */
        A64(0xa8c27bfd), /* 30 ldp x29, x30, [sp], #32            */
        A64(0xd65f03c0), /* 34 ret                                */
    };
    put_address(code, 0x14, (void *)apijit_probe);
    return emit(at, code, sizeof code);
}
enum { kComputeSize = 0x38, kSquareAt = 0x0c, kSquareSize = 4, kStepSize = 0x24 };
static LineNumberInfo compute_lines[] = {{0x0c, 4}, {0x14, 5}, {0x28, 6}, {0x38, 7}};
static LineNumberInfo square_lines[] = {{0x04, 3}};
static LineNumberInfo step_lines[] = {{0x08, 8}, {0x24, 9}};

static uint8_t *compile_step(size_t at, const uint8_t *compute)
{
    uint8_t code[] = {
        A64(0xa9bf7bfd), /* 00 stp x29, x30, [sp, #-16]!   line 8 */
        A64(0x910003fd), /* 04 mov x29, sp                        */
        A64(0xd2800010), /* 08 movz/movk x16, compute      line 9 */
        A64(0xf2a00010), A64(0xf2c00010), A64(0xf2e00010),
        A64(0xd63f0200), /* 18 blr x16                            */
        A64(0xa8c17bfd), /* 1c ldp x29, x30, [sp], #16            */
        A64(0xd65f03c0), /* 20 ret                                */
    };
    put_address(code, 0x08, compute);
    return emit(at, code, sizeof code);
}

static const uint8_t kReturn[] = {A64(0x52800000), A64(0xd65f03c0)}; /* mov w0, #0; ret */
static const uint8_t kGone = 0x00;                                      /* udf #0 */
#endif

static int run_program(void)
{
    uint8_t *compute = compile_compute(0x100);
    iJIT_Method_Load_V2 compute_load = {
        .method_id = iJIT_GetNewMethodID(), .method_name = "compute",
        .method_load_address = compute, .method_size = kComputeSize,
        .line_number_size = 4, .line_number_table = compute_lines,
        .source_file_name = source_path, .module_name = "apijit"};
    printf("apijit: compute at %p\n", (void *)compute);
    report(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED_V2, &compute_load, "METHOD_LOAD_FINISHED_V2 compute");

    iJIT_Method_Inline_Load square_load = {
        .method_id = iJIT_GetNewMethodID(), .parent_method_id = compute_load.method_id,
        .method_name = "square", .method_load_address = compute + kSquareAt,
        .method_size = kSquareSize,
        .line_number_size = 1, .line_number_table = square_lines,
        .source_file_name = source_path};
    printf("apijit: square inlined at %p\n", (void *)(compute + kSquareAt));
    report(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, &square_load,
           "METHOD_INLINE_LOAD_FINISHED square");

    uint8_t *step = compile_step(0x200, compute);
    iJIT_Method_Load step_load = {
        .method_id = iJIT_GetNewMethodID(), .method_name = "step",
        .method_load_address = step, .method_size = kStepSize,
        .line_number_size = 2, .line_number_table = step_lines,
        .source_file_name = source_path};
    printf("apijit: step at %p\n", (void *)step);
    report(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &step_load, "METHOD_LOAD_FINISHED step");
    printf("apijit: phase 1: step(3) = %d\n", ((int (*)(int))step)(3));

    uint8_t *moved = compile_step(0x300, compute);
    step_load.method_load_address = moved; /* same id, name and lines: new place */
    printf("apijit: step moved to %p\n", (void *)moved);
    report(iJVM_EVENT_TYPE_METHOD_UPDATE, &step_load, "METHOD_UPDATE step");
    memset(step, kGone, kStepSize); /* the old code is gone */
    __builtin___clear_cache((char *)step, (char *)step + kStepSize);
    printf("apijit: phase 2: step(4) = %d\n", ((int (*)(int))moved)(4));

    uint8_t *scratch = emit(0x400, kReturn, sizeof kReturn);
    iJIT_Method_Load scratch_load = {
        .method_id = iJIT_GetNewMethodID(), .method_name = "scratch",
        .method_load_address = scratch, .method_size = sizeof kReturn};
    printf("apijit: scratch at %p\n", (void *)scratch);
    report(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &scratch_load, "METHOD_LOAD_FINISHED scratch");
    report(iJVM_EVENT_TYPE_METHOD_UNLOAD_START, &scratch_load.method_id,
           "METHOD_UNLOAD_START scratch");
    apijit_probe(3);
    printf("apijit: phase 3\n");
    report(iJVM_EVENT_TYPE_SHUTDOWN, NULL, "SHUTDOWN");
    return 0;
}

static int send_bad_events(void)
{
    uint8_t *code = emit(0x100, kReturn, sizeof kReturn);
    LineNumberInfo backwards[] = {{2, 1}, {1, 2}};
    iJIT_Method_Load good = {.method_id = 5000, .method_name = "good",
                             .method_load_address = code, .method_size = sizeof kReturn};
    iJIT_Method_Load load = good;
    load.method_name = NULL;
    report(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load, "null name");
    load = good;
    load.method_id = 999;
    report(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load, "method id 999");
    load = good;
    load.method_size = 0;
    report(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load, "zero size");
    load = good;
    load.method_load_address = NULL;
    report(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load, "null address");
    report(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, NULL, "null data");
    load = good;
    load.method_id = 5001;
    load.line_number_size = 2;
    load.line_number_table = backwards;
    load.source_file_name = source_path;
    report(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load, "lines out of order");
    report(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &good, "good");
    iJIT_Method_Inline_Load outside = {.method_id = 5002, .parent_method_id = 5000,
                                       .method_name = "outside", .method_load_address = code + 2,
                                       .method_size = 16};
    report(iJVM_EVENT_TYPE_METHOD_INLINE_LOAD_FINISHED, &outside, "inline outside its parent");
    load = good;
    load.method_id = 6000;
    report(iJVM_EVENT_TYPE_METHOD_UPDATE, &load, "update of an unknown method");
    unsigned int unknown = 6001;
    report(iJVM_EVENT_TYPE_METHOD_UNLOAD_START, &unknown, "unload of an unknown method");
    iJIT_Method_Update segment = {code, sizeof kReturn, iJIT_CT_CODE, "code"};
    report(iJVM_EVENT_TYPE_METHOD_UPDATE_V2, &segment, "segment update");
    report((iJIT_JVM_EVENT)99, &good, "event 99");
    report(iJVM_EVENT_TYPE_SHUTDOWN, NULL, "SHUTDOWN");
    report(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &good, "load after shutdown");
    return 0;
}

static int methods_per_thread;

static void *report_many(void *arg)
{
    const size_t first = (size_t)(uintptr_t)arg * (size_t)methods_per_thread;
    char name[64];
    for (int i = 0; i < methods_per_thread; ++i) {
        uint8_t *code = region + (first + (size_t)i) * 16;
        snprintf(name, sizeof name, "thread%zu_method%d", first / (size_t)methods_per_thread, i);
        iJIT_Method_Load load = {.method_id = iJIT_GetNewMethodID(), .method_name = name,
                                 .method_load_address = code, .method_size = sizeof kReturn};
        if (iJIT_NotifyEvent(iJVM_EVENT_TYPE_METHOD_LOAD_FINISHED, &load) != 1)
            fprintf(stderr, "apijit: %s was not taken\n", name);
    }
    return NULL;
}

static int report_from_threads(int threads)
{
    pthread_t ids[64];
    if ((size_t)threads * (size_t)methods_per_thread * 16 > kRegionSize) {
        fprintf(stderr, "apijit: --threads x --methods is more than the code region holds\n");
        return 2;
    }
    for (size_t at = 0; at + sizeof kReturn <= kRegionSize; at += 16)
        memcpy(region + at, kReturn, sizeof kReturn);
    for (int t = 0; t < threads; ++t)
        pthread_create(&ids[t], NULL, report_many, (void *)(uintptr_t)t);
    for (int t = 0; t < threads; ++t)
        pthread_join(ids[t], NULL);
    printf("apijit: %d threads reported %d methods each\n", threads, methods_per_thread);
    report(iJVM_EVENT_TYPE_SHUTDOWN, NULL, "SHUTDOWN");
    return 0;
}

int main(int argc, char **argv)
{
    int bad_events = 0, threads = 0;
    methods_per_thread = 1000;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--bad-events"))
            bad_events = 1;
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--methods") && i + 1 < argc)
            methods_per_thread = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--source") && i + 1 < argc)
            snprintf(source_path, sizeof source_path, "%s", argv[++i]);
        else {
            fprintf(stderr, "usage: apijit [--bad-events | --threads N [--methods M]] "
                            "[--source FILE]\n");
            return 2;
        }
    }
    if (threads < 0 || threads > 64 || methods_per_thread < 1) {
        fprintf(stderr, "apijit: --threads is 1..64 and --methods at least 1\n");
        return 2;
    }
    region = mmap(NULL, kRegionSize, PROT_READ | PROT_WRITE | PROT_EXEC,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED) {
        perror("apijit: mmap");
        return 1;
    }
    printf("apijit: profiling is %s\n",
           iJIT_IsProfilingActive() == iJIT_SAMPLING_ON ? "on" : "off");
    if (bad_events)
        return send_bad_events();
    if (threads > 0)
        return report_from_threads(threads);
    return run_program();
}
