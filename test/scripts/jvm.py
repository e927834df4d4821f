"""Runs a Java program for a test: compiles it, starts the JVM with the
arguments READY and STOP (files in a work directory), waits until the
program writes READY and stops it by creating STOP; the JVM is killed if it
does not exit, and the perf map jcmd may have written is removed.

    with Jvm(source, main_class, workdir, jvm_args=[...]) as jvm:
        jvm.pid ...
"""
import os
import shlex
import shutil
import subprocess
import sys
import time


def wait_for(predicate, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def tool(name):
    path = shutil.which(name)
    if not path:
        sys.exit("error: %s is not on PATH" % name)
    return path


class Jvm:
    def __init__(self, source, main_class, workdir, jvm_args=(), program_args=(),
                 warm_seconds=20, stdout=subprocess.DEVNULL, stderr=None):
        self.source, self.main_class, self.workdir = source, main_class, workdir
        self.jvm_args, self.program_args = list(jvm_args), list(program_args)
        self.warm_seconds, self.stdout, self.stderr = warm_seconds, stdout, stderr
        self.ready = os.path.join(workdir, "ready")
        self.stop = os.path.join(workdir, "stop")
        self.process = None

    @property
    def pid(self):
        return self.process.pid

    def __enter__(self):
        os.makedirs(self.workdir, exist_ok=True)
        for path in (self.ready, self.stop):
            if os.path.exists(path):
                os.remove(path)
        subprocess.run([tool("javac"), "-g", "-d", self.workdir, self.source], check=True)
        # In a sanitized build, lit names what starts a program that may load
        # the agent (now or by jcmd): the JVM gets the sanitizer runtime.
        host = shlex.split(os.environ.get("JITSYM_SANITIZED_HOST", ""))
        command = (host + [tool("java")] + self.jvm_args + ["-cp", self.workdir,
                   self.main_class, self.ready, self.stop] + self.program_args)
        self.process = subprocess.Popen(command, stdout=self.stdout, stderr=self.stderr)
        if not wait_for(lambda: os.path.exists(self.ready) or self.process.poll() is not None,
                        self.warm_seconds):
            self.__exit__(None, None, None)
            sys.exit("error: the JVM did not get ready within %d s" % self.warm_seconds)
        if self.process.poll() is not None:
            sys.exit("error: the JVM exited early with status %d" % self.process.returncode)
        return self

    def jcmd(self, *command):
        return subprocess.run([tool("jcmd"), str(self.pid)] + list(command),
                              capture_output=True, text=True, timeout=30)

    def __exit__(self, *exc):
        open(self.stop, "w").close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        perf_map = "/tmp/perf-%d.map" % self.pid
        if os.path.exists(perf_map):
            os.remove(perf_map)
        return False
