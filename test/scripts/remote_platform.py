"""Runs LLDB against a real `lldb-server platform` on loopback whose files LLDB
cannot see: the server runs in its own mount namespace with a private /tmp
(and, with --android-layout, in a root where Android's /data/local/tmp and
/data/data/PKG exist). Every "@PORT@" in LLDB's arguments becomes the server's
port; LLDB's output goes to stdout.

usage: remote_platform.py [--no-shell-tools] [--android-layout [--as-nobody]] LLDB [ARG...]
  --no-shell-tools  the platform's shell finds no `tail` (PATH=/nonexistent)
  --android-layout  /data/local/tmp and /data/data/com.example.jit exist there
  --as-nobody       the server runs as user nobody, as lldb-server does on an
                    Android device without root
"""
import os
import socket
import subprocess
import sys
import time

SERVER = "/usr/lib/llvm-22/bin/lldb-server-22"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def kept_paths(argv):
    """Directories the server must see as they are: the repository, the
    working directory and those of the files named in LLDB's arguments (the
    program, the plugin), the outermost of each nest."""
    paths = {os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
             os.getcwd()}
    for arg in argv:
        for word in arg.split():
            word = word.strip("'\"")
            if word.startswith("/") and os.path.exists(word):
                paths.add(os.path.dirname(os.path.realpath(word)))
    paths = sorted(p for p in paths if p != "/")
    return [p for p in paths if not any(p.startswith(q + "/") for q in paths if q != p)]


def server_script(port, android_layout, no_shell_tools, as_nobody, keep):
    env = "env PATH=/nonexistent " if no_shell_tools else ""
    user = "setpriv --reuid=65534 --regid=65534 --clear-groups " if as_nobody else ""
    serve = f"{user}{env}{SERVER} platform --server --listen 127.0.0.1:{port}"
    # The old /tmp stays reachable at /mnt, for the kept paths below it.
    # Recursively: a checkout under /tmp may be a mount of its own there (the
    # private /tmp of test/scripts/private-tmp.sh binds it back).
    lines = ["set -e", "mount --rbind /tmp /mnt", "mount -t tmpfs jitsym-remote /tmp"]

    def rebind(root, paths):
        for path in paths:
            source = "/mnt" + path[4:] if path.startswith("/tmp/") else path
            lines.extend([f"mkdir -p '{root}{path}'", f"mount --rbind '{source}' '{root}{path}'"])

    if android_layout:
        # An overlay of / (writes stay in the namespace) holding /data.
        lines += [
            "mkdir -p /tmp/o/upper /tmp/o/work /tmp/o/root",
            "mount -t overlay overlay -o lowerdir=/,upperdir=/tmp/o/upper,"
            "workdir=/tmp/o/work /tmp/o/root",
            "mkdir -p /tmp/o/root/data/local/tmp /tmp/o/root/data/data/com.example.jit",
            "chmod 1777 /tmp/o/root/data/local/tmp /tmp/o/root/data/data/com.example.jit",
            "mount -t proc proc /tmp/o/root/proc",
            "mount --rbind /dev /tmp/o/root/dev",
            "mount --rbind /sys /tmp/o/root/sys",
            "mount -t tmpfs jitsym-remote /tmp/o/root/tmp",
        ]
        # The overlay has the root file system only, not what is mounted on it.
        rebind("/tmp/o/root", keep)
        lines.append(f"exec chroot /tmp/o/root {serve}")
    else:
        rebind("", [p for p in keep if p.startswith("/tmp/")])
        lines.append(f"exec {serve}")
    return "\n".join(lines)


def wait_listening(port, server):
    for _ in range(200):
        if server.poll() is not None:
            sys.exit(f"remote_platform.py: the server exited with {server.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit("remote_platform.py: the server did not listen")


def main(argv):
    options = ("--android-layout", "--no-shell-tools", "--as-nobody")
    android_layout, no_shell_tools, as_nobody = (o in argv for o in options)
    argv = [a for a in argv if a not in options]
    if not argv:
        sys.exit(__doc__)
    port = free_port()
    # The server's /tmp is a new, empty one: a TMPDIR below the old one (lit
    # sets one) would not exist there, and the server needs it to run commands.
    env = {k: v for k, v in os.environ.items() if k not in ("TMPDIR", "TEMP", "TMP", "TEMPDIR")}
    env["PATH"] = env.get("PATH", "/usr/bin:/bin") + ":/usr/sbin:/sbin"  # chroot, mount
    # The server runs commands with $SHELL, else the user's login shell, which
    # for nobody is nologin.
    env["SHELL"] = "/bin/sh"
    server = subprocess.Popen(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c",
         server_script(port, android_layout, no_shell_tools, as_nobody, kept_paths(argv))],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        # LLDB's own connection counts as one; the server serves each in a child.
        wait_listening(port, server)
        command = [a.replace("@PORT@", str(port)) for a in argv]
        result = subprocess.run(command, stdin=subprocess.DEVNULL, timeout=240)
        return result.returncode
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
