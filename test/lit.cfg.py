# lit configuration for jitsym's behaviour tests (CLI output, LLDB sessions).
import os
import shutil
import subprocess
import sys

import lit.formats
import lit.util

config.name = "jitsym"
config.test_format = lit.formats.ShTest(execute_external=False)
host = ""  # what runs a program that loads our sanitized libraries
if config.sanitizer_preload:
    # Built with JITSYM_SANITIZE=ON. The format lives in a module, so that
    # lit's worker processes can load it.
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "scripts"))
    import sanitized_format
    config.test_format = sanitized_format.SanitizedShTest(execute_external=False)
    config.available_features.add("asan")
    host = "/bin/sh " + os.path.join(os.path.dirname(__file__), "scripts", "sanitized-host.sh")
    config.environment["JITSYM_SANITIZER_PRELOAD"] = config.sanitizer_preload
    config.environment["JITSYM_SANITIZER_HOST_OPTIONS"] = sanitized_format.HOST
    config.environment["JITSYM_SANITIZER_JVM_OPTIONS"] = sanitized_format.JVM
    # For the test scripts that start such a program themselves (jvm.py,
    # dap_session.py): the command to put before it.
    config.environment["JITSYM_SANITIZED_HOST"] = host
config.suffixes = [".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.jitsym_build_dir, "test")

# --param portable=1: the plugin reaches local processes through the SB API
# only (jit-sync --portable), as on a platform without /proc. Tests that need
# what only /proc gives (the stdio buffer, the compile watch, /proc/PID/root,
# start times) say `UNSUPPORTED: portable`.
if lit_config.params.get("portable") == "1":
    config.environment["JITSYM_PORTABLE"] = "1"
    config.available_features.add("portable")
    config.name = "jitsym-portable"

# The LLDB this tree is built for, and what it has (tests that pin what an
# older LLDB lacks check the one-line degradation instead):
#  lldb-N                 this LLDB's major version;
#  lldb-progress          SBProgress (LLDB 20): progress events of a long sync;
#  lldb-api-mutex         SBMutex (LLDB 21): interrupt stops synced at once;
#  lldb-json-sections     a JSON object file's section addresses (LLDB 21).
config.available_features.add("lldb-%d" % config.lldb_major)
if config.lldb_major >= 20:
    config.available_features.add("lldb-progress")
if config.lldb_major >= 21:
    config.available_features.add("lldb-api-mutex")
    config.available_features.add("lldb-json-sections")

# Files jitsym writes go to a per-run private directory, not the user's.
config.environment["JITSYM_DIR"] = os.path.join(config.test_exec_root, "private")
config.environment["LLDB_DEBUGSERVER_PATH"] = config.lldb_server
config.environment["PYTHONPATH"] = config.lldb_pythonpath
# JITSYM_FILTER_WRITES=0: the whole suite with the compile watch's stop at
# every write instead of its filter in the process (jit-sync --filter-writes).
for var in ("HOME", "TMPDIR", "PATH", "JITSYM_FILTER_WRITES"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
os.makedirs(config.environment["JITSYM_DIR"], mode=0o700, exist_ok=True)
os.chmod(config.environment["JITSYM_DIR"], 0o700)

tools = config.llvm_tools_dir
config.substitutions.append(("%jitsym", os.path.join(config.jitsym_build_dir, "bin", "jitsym")))
config.substitutions.append(("%plugin", os.path.join(config.jitsym_build_dir, "lib", "libjitsym-lldb.so")))
config.substitutions.append(("%jvmti_agent", os.path.join(config.jitsym_build_dir, "lib", "libjitsym-jvmti.so")))
config.substitutions.append(("%buildlib", os.path.join(config.jitsym_build_dir, "lib")))
config.substitutions.append(("%java_examples", os.path.join(config.jitsym_build_dir, "examples", "java")))
config.substitutions.append(("%collector", os.path.join(config.jitsym_build_dir, "lib", "libjitsym-jitprofiling.so")))
config.substitutions.append(("%apijit", os.path.join(config.jitsym_build_dir, "bin", "apijit")))
config.substitutions.append(("%writerjit", os.path.join(config.jitsym_build_dir, "bin", "writerjit")))
config.substitutions.append(("%stressjit", os.path.join(config.jitsym_build_dir, "test", "stressjit")))
config.substitutions.append(("%tinyjit_asan", os.path.join(config.jitsym_build_dir, "test", "tinyjit-asan")))
config.substitutions.append(("%deepbindjit", os.path.join(config.jitsym_build_dir, "test", "deepbindjit")))
config.substitutions.append(("%watchlib", os.path.join(config.jitsym_build_dir, "lib", "libjitsym-watch.so")))
config.substitutions.append(("%stdiojit", os.path.join(config.jitsym_build_dir, "test", "stdiojit")))
config.substitutions.append(("%tinyjit", os.path.join(config.jitsym_build_dir, "bin", "tinyjit")))
config.substitutions.append(("%lldb_dap", os.path.join(os.path.dirname(config.lldb), "lldb-dap")))
# Programs that load the plugin or the JVMTI agent: in a sanitized build they
# get the sanitizer runtime first (test/scripts/sanitized-host.sh). A JVM that
# LLDB launches gets it through %lldb_java_env. %java comes after
# %java_examples, and %lldb_java_env before %lldb, as each begins the other.
prefix = host + " " if host else ""
lldb_java_env = ""
if host:
    import sanitized_format
    lldb_java_env = '-o "env LD_PRELOAD=%s ASAN_OPTIONS=%s:log_path=%s:%s:%s"' % (
        config.sanitizer_preload, sanitized_format.ASAN, sanitized_format.log_path("%t"),
        sanitized_format.HOST, sanitized_format.JVM)
config.substitutions.append(("%lldb_java_env", lldb_java_env))
# lldb at a prompt, for a driver that types at it (before %lldb, which begins it).
# An LLDB of another version (REQUIRES: other-lldb), unsanitized: it only
# loads this tree's plugin.
if config.other_lldb and os.path.exists(config.other_lldb):
    config.available_features.add("other-lldb")
    # An unpacked Debian LLDB (ROOT/usr/lib/llvm-N/bin/lldb) finds some of its
    # libraries in ROOT/usr/lib/x86_64-linux-gnu only.
    libdir = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(config.other_lldb))),
                          "x86_64-linux-gnu")
    config.substitutions.append(("%other_lldb", "env LD_LIBRARY_PATH=%s %s --no-lldbinit"
                                 % (libdir, config.other_lldb)))
config.substitutions.append(("%lldb_interactive", prefix + config.lldb))
config.substitutions.append(("%lldb", prefix + config.lldb + " --no-lldbinit -b"))
config.substitutions.append(("%python", prefix + "/usr/bin/python3"))
config.substitutions.append(("%java", prefix + "java"))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
config.substitutions.append(("%scripts", os.path.join(config.jitsym_source_dir, "test", "scripts")))
config.substitutions.append(("%builddir", config.jitsym_build_dir))
config.substitutions.append(("%pyjitsym", os.path.join(config.jitsym_source_dir, "python", "jitsym")))
config.substitutions.append(("%core_helper", os.path.join(config.jitsym_source_dir, "scripts", "jitsym-core-helper")))
config.substitutions.append(("%examples", os.path.join(config.jitsym_source_dir, "examples")))
# PHP 8.2's opcache JIT as a subject (test/php).
if os.path.exists("/usr/bin/php8.2") and os.path.exists("/usr/lib/php/20220829/opcache.so"):
    config.available_features.add("php-jit")
# LLVM's own JIT as a subject (test/llvm): LLVM 22's lli, whichever LLDB tests it.
lli = "/usr/lib/llvm-22/bin/lli"
if os.path.exists(lli):
    config.available_features.add("lli")
    config.substitutions.append(("%lli", lli))
config.substitutions.append(("FileCheck", os.path.join(tools, "FileCheck")))
config.substitutions.append(("not ", os.path.join(tools, "not") + " "))
config.substitutions.append(("split-file", os.path.join(tools, "split-file")))
config.substitutions.append(("llvm-dwarfdump", os.path.join(tools, "llvm-dwarfdump")))

# The kernel writes cores as plain files into the working directory.
try:
    with open("/proc/sys/kernel/core_pattern") as f:
        pattern = f.read().strip()
    if pattern and not pattern.startswith("|") and "/" not in pattern:
        config.available_features.add("kernel-cores")
except OSError:
    pass
# Remote tests run lldb-server in a mount namespace of its own (root only).
if shutil.which("unshare") and subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c",
         "mount -t tmpfs jitsym-probe /mnt"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0:
    config.available_features.add("private-mounts")
# PID reuse is staged by writing the kernel's last PID (root only).
if os.access("/proc/sys/kernel/ns_last_pid", os.W_OK):
    config.available_features.add("pid-reuse")
# Debian packages are made (cpack) and read (dpkg-deb) here.
if shutil.which("cpack") and shutil.which("dpkg-deb") and shutil.which("apt-get"):
    config.available_features.add("debian-packaging")
# aarch64 programs debugged from this machine through LLDB's qemu-user platform.
tinyjit_aarch64 = os.path.join(config.jitsym_build_dir, "bin", "aarch64", "tinyjit")
qemu_aarch64 = shutil.which("qemu-aarch64")
if qemu_aarch64 and os.path.exists(tinyjit_aarch64):
    config.available_features.add("aarch64-qemu")
    # before %tinyjit, which begins it
    config.substitutions.insert(0, ("%tinyjit_aarch64", tinyjit_aarch64))
    config.substitutions.append(("%qemu_aarch64", qemu_aarch64))
    # (before %writerjit, which begins it)
    config.substitutions.insert(0, ("%writerjit_aarch64", os.path.join(
        config.jitsym_build_dir, "bin", "aarch64", "writerjit")))
    # Dynamic aarch64 programs (apijit dlopen()s the collector) run with the
    # cross compilers' libraries: qemu takes them from QEMU_LD_PREFIX.
    sysroot = "/usr/aarch64-linux-gnu"
    if os.path.exists(os.path.join(sysroot, "lib", "ld-linux-aarch64.so.1")):
        config.available_features.add("aarch64-qemu-dynamic")
        config.substitutions.insert(0, ("%aarch64_sysroot", sysroot))
        config.substitutions.insert(0, ("%apijit_aarch64", os.path.join(
            config.jitsym_build_dir, "bin", "aarch64", "apijit")))
        config.substitutions.insert(0, ("%collector_aarch64", os.path.join(
            config.jitsym_build_dir, "lib", "aarch64", "libjitsym-jitprofiling.so")))
if shutil.which("gdb") and shutil.which("gcore"):
    config.available_features.add("gdb")
if shutil.which("node"):
    config.available_features.add("node")
if shutil.which("erl") and shutil.which("erlc"):
    config.available_features.add("erlang")
if shutil.which("mono") and shutil.which("mcs"):
    config.available_features.add("mono")
# PostgreSQL 15's server and its LLVM JIT, and the user it runs as.
if os.path.exists("/usr/lib/postgresql/15/lib/llvmjit.so") and \
        subprocess.run(["id", "postgres"], capture_output=True).returncode == 0:
    config.available_features.add("postgres")
if shutil.which("java") and shutil.which("jcmd"):
    config.available_features.add("java")
    if os.path.exists(os.path.join(config.jitsym_build_dir, "lib", "libjitsym-jvmti.so")):
        config.available_features.add("jvmti")
# A JDK 25 beside the `java` on PATH (JITSYM_JDK25, else Temurin's package):
# its HotSpot lays nmethods out otherwise than 17's. %jdk25_path is a PATH
# that finds its java, javac and jcmd first.
jdk25 = os.environ.get("JITSYM_JDK25", "/usr/lib/jvm/temurin-25-jdk-amd64")
if all(os.access(os.path.join(jdk25, "bin", tool), os.X_OK) for tool in ("java", "javac", "jcmd")):
    config.available_features.add("jdk25")
    config.substitutions.append(("%jdk25_path", os.pathsep.join(
        [os.path.join(jdk25, "bin"), config.environment.get("PATH", "")])))
