/* libjitsym-sanitized-host.so: preloaded after the sanitizer runtime into the
 * uninstrumented programs that load jitsym's libraries in a JITSYM_SANITIZE
 * build (lldb, python3, java; test/scripts/sanitized-host.sh).
 *
 * A preloaded runtime is initialized after the host's own libraries, so it
 * initializes lazily, on the first call it intercepts. When that call is the
 * malloc inside glibc's newlocale (lldb: libp11-kit's constructor, through
 * libcurl), the runtime's initialization calls dlerror, which takes the
 * locale lock that newlocale holds: the lock is left broken and lldb hangs in
 * its first setlocale. So the locale functions that allocate under that lock
 * first make sure the runtime is initialized.
 *
 * Once loaded, it also puts back the LD_PRELOAD that sanitized-host.sh was
 * given, so the programs the host starts do not inherit the runtime. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <locale.h>
#include <stdlib.h>

void __asan_init(void); /* the runtime's; initializes it once */

locale_t newlocale(int mask, const char *name, locale_t base) {
  static locale_t (*real)(int, const char *, locale_t);
  __asan_init();
  if (!real)
    real = (locale_t(*)(int, const char *, locale_t))dlsym(RTLD_NEXT, "newlocale");
  return real(mask, name, base);
}

locale_t duplocale(locale_t locale) {
  static locale_t (*real)(locale_t);
  __asan_init();
  if (!real)
    real = (locale_t(*)(locale_t))dlsym(RTLD_NEXT, "duplocale");
  return real(locale);
}

/* Runs before the host's main, after the libraries are loaded. */
__attribute__((constructor)) static void restore_preload(void) {
  const char *preload = getenv("JITSYM_OUTER_LD_PRELOAD");
  if (!preload)
    return; /* not started by sanitized-host.sh */
  if (*preload)
    setenv("LD_PRELOAD", preload, 1);
  else
    unsetenv("LD_PRELOAD");
  unsetenv("JITSYM_OUTER_LD_PRELOAD");
}
