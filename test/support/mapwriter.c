/*
 * mapwriter.c - libjitsym-test-mapwriter.so, deepbindjit's perf map writer:
 * one line of /tmp/perf-PID.map per write(2), as V8 and opcache announce code.
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int mapwriter_announce(const void *code, unsigned long size, const char *name)
{
    static int fd = -1;
    if (fd < 0) {
        char path[64];
        snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd < 0)
            return -1;
    }
    char line[160];
    int length = snprintf(line, sizeof line, "%lx %lx %s\n", (unsigned long)code, size, name);
    return write(fd, line, (size_t)length) == length ? 0 : -1;
}
