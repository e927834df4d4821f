/*
 * deepbindjit.c - a JIT whose perf map is written by a library it loads with
 * dlopen, as PHP's opcache.so writes PHP's (test/lldb/pending-breakpoint-deepbind.test).
 *
 *   deepbindjit deep COUNT     loads the writer by path with RTLD_DEEPBIND,
 *                              as PHP loads opcache.so: the writer's write()
 *                              is glibc's, not a preloaded library's
 *   deepbindjit by-name COUNT  loads it by name, found through this program's
 *                              RUNPATH ($ORIGIN): glibc searches the RUNPATH
 *                              of dlopen's caller
 *
 * Then compiles COUNT functions "deep_fn_N" and one "deep_wanted", announces
 * each through the writer (a line of /tmp/perf-PID.map per write(2)), calls
 * deep_wanted and prints what it returned. Linux x86-64; libc only.
 */
#define _GNU_SOURCE

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define WRITER "libjitsym-test-mapwriter.so"
#define FUNCTION_BYTES 16

typedef int (*announce_fn)(const void *code, unsigned long size, const char *name);

static void *load_writer(int deep)
{
    if (!deep)
        return dlopen(WRITER, RTLD_NOW);
    char path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - sizeof WRITER - 1);
    if (n <= 0)
        return NULL;
    path[n] = 0;
    strcpy(strrchr(path, '/') + 1, WRITER);
    return dlopen(path, RTLD_NOW | RTLD_DEEPBIND);
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "deep") && strcmp(argv[1], "by-name"))) {
        fprintf(stderr, "usage: deepbindjit deep|by-name COUNT\n");
        return 2;
    }
    const int deep = strcmp(argv[1], "deep") == 0;
    const long count = atol(argv[2]);
    void *writer = load_writer(deep);
    if (!writer) {
        fprintf(stderr, "deepbindjit: %s\n", dlerror());
        return 1;
    }
    announce_fn announce = (announce_fn)dlsym(writer, "mapwriter_announce");
    printf("deepbindjit: loaded its writer %s\n", deep ? "by path, deep-bound" : "by name");
    fflush(stdout);

    unsigned char *code = mmap(NULL, (size_t)(count + 1) * FUNCTION_BYTES,
                               PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (code == MAP_FAILED) {
        perror("deepbindjit: mmap");
        return 1;
    }
    for (long i = 0; i <= count; ++i) {
        /* mov eax, i; ret; then int3 padding */
        unsigned char *f = code + i * FUNCTION_BYTES;
        memset(f, 0xcc, FUNCTION_BYTES);
        f[0] = 0xb8;
        int value = i == count ? 42 : (int)i;
        memcpy(f + 1, &value, 4);
        f[5] = 0xc3;
        char name[32];
        if (i == count)
            snprintf(name, sizeof name, "deep_wanted");
        else
            snprintf(name, sizeof name, "deep_fn_%ld", i);
        if (announce(f, FUNCTION_BYTES, name) != 0) {
            perror("deepbindjit: announce");
            return 1;
        }
    }
    int (*wanted)(void) = (int (*)(void))(void *)(code + count * FUNCTION_BYTES);
    printf("deepbindjit: deep_wanted returned %d\n", wanted());
    return 0;
}
