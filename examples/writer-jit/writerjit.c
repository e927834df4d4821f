/*
 * writerjit.c - a tiny x86-64 and aarch64 JIT that announces its code with
 * libjitsym-writer (jitsym-writer.h): a perf map line and a jitdump record,
 * with source lines of calc.mini, for each function. LLDB with jitsym names
 * its frames and shows the lines (see README.md).
 *
 * It compiles twice(x) and run(n) of calc.mini, announces them, and calls
 * run(21): run -> twice -> writerjit_probe(42), where a debugger stops.
 * With --again it then compiles twice anew elsewhere, unloads the old code,
 * compiles run again in place (it now calls the new twice) and calls run(5).
 * --announce map|dump announces in that file only (default: both).
 *
 * Linux on x86-64 or aarch64. Build: see CMakeLists.txt (links
 * libjitsym-writer; for aarch64, cross-compiled with the writer's sources).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "jitsym-writer.h"

#if !defined(__x86_64__) && !defined(__aarch64__)
#error "writerjit generates x86-64 or aarch64 code"
#endif

#ifndef WRITERJIT_SOURCE
#define WRITERJIT_SOURCE "calc.mini"
#endif

volatile int writerjit_probe_last;

__attribute__((noinline, used)) void writerjit_probe(int value)
{
    writerjit_probe_last = value;
}

static uint8_t *region;
static int to_map = 1, to_dump = 1; /* --announce */

static void put_address(uint8_t *code, size_t at, const void *address)
{
    uint64_t value = (uint64_t)(uintptr_t)address;
#if defined(__x86_64__)
    memcpy(code + at, &value, sizeof value); /* movabs's immediate */
#else
    /* movz x16, #a0; movk x16, #a1, lsl 16; ... lsl 48 */
    for (uint32_t hw = 0; hw < 4; hw++) {
        uint32_t insn = (hw == 0 ? 0xd2800010u : 0xf2800010u) | (hw << 21) |
                        (uint32_t)(((value >> (16 * hw)) & 0xffff) << 5);
        memcpy(code + at + 4 * hw, &insn, 4);
    }
#endif
}

/* Code in place: copied, and the instruction cache told. */
static void place(size_t at, const uint8_t *code, size_t size)
{
    memcpy(region + at, code, size);
    __builtin___clear_cache((char *)region + at, (char *)region + at + size);
}

/* Retired code made to trap if run (int3; brk #0). */
static void retire(uint8_t *code, size_t size)
{
#if defined(__x86_64__)
    memset(code, 0xcc, size);
#else
    for (size_t i = 0; i + 4 <= size; i += 4) {
        const uint32_t brk = 0xd4200000;
        memcpy(code + i, &brk, 4);
    }
#endif
}

/* Announces code in both files; a failure is reported with its code. */
static void announce(const uint8_t *code, unsigned int size, const char *name,
                     const jitsym_line *lines, unsigned int count)
{
    int result = to_map ? jitsym_perf_map_write(code, size, name) : JITSYM_OK;
    if (result != JITSYM_OK)
        fprintf(stderr, "writerjit: perf map entry for %s: error %d (%s)\n", name, result,
                strerror(errno));
    result = to_dump ? jitsym_jitdump_write(code, size, name, lines, count) : JITSYM_OK;
    if (result != JITSYM_OK)
        fprintf(stderr, "writerjit: jitdump record for %s: error %d (%s)\n", name, result,
                strerror(errno));
    printf("writerjit: %s at %p\n", name, (const void *)code);
}

#define LE32(x) (uint8_t)(x), (uint8_t)((x) >> 8), (uint8_t)((x) >> 16), (uint8_t)((x) >> 24)

/* twice(x): y = x + x; writerjit_probe(y); return y. */
static uint8_t *compile_twice(size_t at)
{
#if defined(__x86_64__)
    static const jitsym_line lines[] = {
        {0x00, 2, WRITERJIT_SOURCE}, {0x09, 3, NULL}, {0x0c, 4, NULL}, {0x1a, 5, NULL}};
    uint8_t code[] = {
        0x55,                         /* 00 push rbp          line 2 */
        0x48, 0x89, 0xe5,             /* 01 mov rbp, rsp             */
        0x53,                         /* 04 push rbx                 */
        0x48, 0x83, 0xec, 0x08,       /* 05 sub rsp, 8               */
        0x8d, 0x1c, 0x3f,             /* 09 lea ebx, [rdi+rdi] line 3 */
        0x89, 0xdf,                   /* 0c mov edi, ebx      line 4 */
        0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, /* 0e movabs rax, probe  */
        0xff, 0xd0,                   /* 18 call rax                 */
        0x89, 0xd8,                   /* 1a mov eax, ebx      line 5 */
        0x48, 0x83, 0xc4, 0x08,       /* 1c add rsp, 8               */
        0x5b,                         /* 20 pop rbx                  */
        0x5d,                         /* 21 pop rbp                  */
        0xc3,                         /* 22 ret                      */
    };
    const size_t probeAt = 0x10;
#else
    static const jitsym_line lines[] = {
        {0x00, 2, WRITERJIT_SOURCE}, {0x0c, 3, NULL}, {0x10, 4, NULL}, {0x28, 5, NULL}};
    uint8_t code[] = {
        LE32(0xa9be7bfd),             /* 00 stp x29, x30, [sp, #-32]! line 2 */
        LE32(0x910003fd),             /* 04 mov x29, sp                      */
        LE32(0xf9000bf3),             /* 08 str x19, [sp, #16]               */
        LE32(0x0b000013),             /* 0c add w19, w0, w0           line 3 */
        LE32(0x2a1303e0),             /* 10 mov w0, w19               line 4 */
        LE32(0), LE32(0), LE32(0), LE32(0), /* 14 movz/movk x16, probe     */
        LE32(0xd63f0200),             /* 24 blr x16                          */
        LE32(0x2a1303e0),             /* 28 mov w0, w19               line 5 */
        LE32(0xf9400bf3),             /* 2c ldr x19, [sp, #16]               */
        LE32(0xa8c27bfd),             /* 30 ldp x29, x30, [sp], #32          */
        LE32(0xd65f03c0),             /* 34 ret                              */
    };
    const size_t probeAt = 0x14;
#endif
    put_address(code, probeAt, (void *)writerjit_probe);
    place(at, code, sizeof code);
    announce(region + at, sizeof code, "twice", lines, 4);
    return region + at;
}

/* run(n): return twice(n). */
static uint8_t *compile_run(size_t at, const uint8_t *twice)
{
#if defined(__x86_64__)
    static const jitsym_line lines[] = {{0x00, 6, WRITERJIT_SOURCE}, {0x04, 7, NULL}};
    uint8_t code[] = {
        0x55,                         /* 00 push rbp          line 6 */
        0x48, 0x89, 0xe5,             /* 01 mov rbp, rsp             */
        0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, /* 04 movabs rax, twice line 7 */
        0xff, 0xd0,                   /* 0e call rax                 */
        0x5d,                         /* 10 pop rbp                  */
        0xc3,                         /* 11 ret                      */
    };
    const size_t twiceAt = 0x06;
#else
    static const jitsym_line lines[] = {{0x00, 6, WRITERJIT_SOURCE}, {0x08, 7, NULL}};
    uint8_t code[] = {
        LE32(0xa9bf7bfd),             /* 00 stp x29, x30, [sp, #-16]! line 6 */
        LE32(0x910003fd),             /* 04 mov x29, sp                      */
        LE32(0), LE32(0), LE32(0), LE32(0), /* 08 movz/movk x16, twice line 7 */
        LE32(0xd63f0200),             /* 18 blr x16                          */
        LE32(0xa8c17bfd),             /* 1c ldp x29, x30, [sp], #16          */
        LE32(0xd65f03c0),             /* 20 ret                              */
    };
    const size_t twiceAt = 0x08;
#endif
    put_address(code, twiceAt, twice);
    place(at, code, sizeof code);
    announce(region + at, sizeof code, "run", lines, 2);
    return region + at;
}

int main(int argc, char **argv)
{
    const char *directory = NULL;
    int again = 0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--dir") && i + 1 < argc)
            directory = argv[++i];
        else if (!strcmp(argv[i], "--again"))
            again = 1;
        else if (!strcmp(argv[i], "--announce") && i + 1 < argc &&
                 (!strcmp(argv[i + 1], "map") || !strcmp(argv[i + 1], "dump"))) {
            to_map = !strcmp(argv[++i], "map");
            to_dump = !to_map;
        } else {
            fprintf(stderr, "usage: writerjit [--dir DIR] [--again] [--announce map|dump]\n");
            return 2;
        }
    }
    region = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE | PROT_EXEC,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED) {
        perror("writerjit: mmap");
        return 1;
    }
    if (to_dump && jitsym_jitdump_init(directory) != JITSYM_OK) {
        fprintf(stderr, "writerjit: cannot start the jitdump in %s: %s\n",
                directory ? directory : "$JITDUMPDIR or /tmp", strerror(errno));
        return 1;
    }
    uint8_t *twice = compile_twice(0x100);
    uint8_t *run = compile_run(0x200, twice);
    printf("writerjit: run(21) = %d\n", ((int (*)(int))run)(21));
    if (again) {
        uint8_t *newer = compile_twice(0x300);
        if (to_dump)
            jitsym_jitdump_unload(twice);
        retire(twice, 0x38);
        run = compile_run(0x200, newer); /* same place, new call target */
        printf("writerjit: run(5) = %d\n", ((int (*)(int))run)(5));
    }
    if (to_dump)
        jitsym_jitdump_fini();
    if (to_map)
        jitsym_perf_map_fini();
    return 0;
}
