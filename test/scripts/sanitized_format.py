"""lit's test format and sanitizer options for a build with JITSYM_SANITIZE=ON
(see test/lit.cfg.py and test/scripts/sanitized-host.sh)."""
import glob
import os

import lit.formats
import lit.Test
import lit.TestRunner

# Every process of a test: a finding aborts the process (so a RUN line fails
# even under `not`), and the report goes to a file next to the test's %t.
# intercept_tls_get_addr=0: clang 14's runtime misreads glibc 2.36's dynamic
# TLS blocks (a thread_local in a dlopen()ed library, as the Intel JIT API
# collector has) and its leak checker then crashes at exit.
ASAN = "abort_on_error=1:detect_leaks=1:intercept_tls_get_addr=0"
UBSAN = "print_stacktrace=1:halt_on_error=1:abort_on_error=1"
# Added in the uninstrumented hosts (sanitized-host.sh), and so in what they
# start: LLDB, Python and the JVM do not free everything at exit, by design,
# and the leak checker cannot run in a program that LLDB debugs.
HOST = "detect_leaks=0"
# Added in a JVM: it takes SIGSEGV, SIGBUS and SIGFPE for itself (implicit null
# checks, safepoints, its fatal error report).
JVM = "handle_segv=0:handle_sigbus=0:handle_sigfpe=0"


def log_path(tmp_name):
    """Where the processes of the test whose %t is `tmp_name` write reports."""
    return tmp_name + ".sanitizer"


class SanitizedShTest(lit.formats.ShTest):
    """Every process a test starts writes its sanitizer reports next to the
    test's %t, and a test with a report fails with the report in its output,
    whatever the RUN lines' exit statuses said (a report under `not`, in a
    process a script started and killed)."""

    def execute(self, test, litConfig):
        _, tmp_base = lit.TestRunner.getTempPaths(test)
        log = log_path(tmp_base + ".tmp")  # lit's %t
        os.makedirs(os.path.dirname(log), exist_ok=True)
        for old in glob.glob(log + ".*"):
            os.remove(old)
        # Each lit worker runs one test at a time, with its own copy of the config.
        env = test.config.environment
        env["ASAN_OPTIONS"] = ASAN + ":log_path=" + log
        env["UBSAN_OPTIONS"] = UBSAN + ":log_path=" + log
        result = super().execute(test, litConfig)
        reports = sorted(glob.glob(log + ".*"))
        if not reports or result.code in (lit.Test.UNSUPPORTED, lit.Test.SKIPPED):
            return result
        text = "".join("\n# sanitizer report %s\n%s" % (r, open(r, errors="replace").read())
                       for r in reports)
        return lit.Test.Result(lit.Test.FAIL, (result.output or "") + text, result.elapsed)
