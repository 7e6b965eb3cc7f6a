"""Helpers for the tests of `agt-collector run --listen` (the attested socket).

A "container" here is a real cgroup named as Docker names one
(docker-<64 hex>.scope) in the cgroup2 hierarchy: a sender started inside it
is seen by the collector exactly as a process in a Docker container is, by
its /proc/PID/cgroup. Making one needs root; without it the test fails.
"""
import os
import secrets
import shutil
import signal
import socket
import subprocess
import time

from collector_support import BUILD, COLLECTOR, Workdir, read_entries  # noqa: F401

SENDER = os.path.join(BUILD, "collector", "collector-test-sender")
ACK, NAK = b"\x06", b"\x15"


def cgroup2_root():
    with open("/proc/self/mounts", encoding="utf-8") as f:
        for line in f:
            fields = line.split()
            if fields[2] == "cgroup2":
                return fields[1]
    raise AssertionError("no cgroup2 hierarchy mounted: these tests need one (and root)")


class Container:
    """A cgroup laid out as Docker's systemd driver does; removed on close()."""

    def __init__(self):
        self.id = secrets.token_hex(32)
        self.path = os.path.join(cgroup2_root(), "docker-%s.scope" % self.id)
        os.mkdir(self.path)
        self.cgroup = "/" + os.path.relpath(self.path, cgroup2_root())

    def enter(self):
        """preexec_fn: moves the child into this cgroup before it execs."""
        with open(os.path.join(self.path, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))

    def popen(self, argv, **kwargs):
        return subprocess.Popen(argv, preexec_fn=self.enter, **kwargs)

    def run(self, argv, timeout=30, **kwargs):
        return subprocess.run(argv, preexec_fn=self.enter, capture_output=True, text=True,
                              timeout=timeout, **kwargs)

    def close(self):
        for _ in range(100):
            try:
                os.rmdir(self.path)
                return
            except OSError:
                time.sleep(0.05)  # a process still leaving


class ListenCollector:
    """agt-collector run --listen on a temporary socket; stop() returns stderr."""

    def __init__(self, test, shim=SENDER, extra=(), shim_sha256=None):
        """The shim is named by path (`shim`), or by its hash alone (`shim_sha256`)."""
        self.w = Workdir()
        test.addCleanup(self.w.cleanup)
        self.socket = self.w.join("denied.sock")
        self.out = self.w.join("audit.jsonl")
        self.stderr_path = self.w.join("stderr.txt")
        self.shim = shim
        self.shim_sha256 = shim_sha256
        self.extra = list(extra)
        self.proc = None
        test.addCleanup(self.kill)

    def start(self, *more):
        args = [COLLECTOR, "run", "--key-file", self.w.key_file, "--out", self.out,
                "--listen", self.socket,
                *(["--shim-sha256", self.shim_sha256] if self.shim_sha256 else
                  ["--shim", self.shim]),
                "--syslog-socket", "none",
                *self.extra, *more]
        self.err = open(self.stderr_path, "wb")
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=self.err)
        deadline = time.monotonic() + 20
        while "listening on" not in self.stderr():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("collector did not start: " + self.stderr())
            time.sleep(0.02)
        return self

    def stderr(self):
        with open(self.stderr_path, encoding="utf-8", errors="replace") as f:
            return f.read()

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        status = self.proc.wait(timeout=60)
        self.err.close()
        return status

    def kill(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.proc is not None:
            self.err.close()

    def entries(self):
        return read_entries(self.out) if os.path.exists(self.out) else []


def python_send(path, message, wait=True):
    """Python (not the shim) speaking the protocol; returns the answer byte."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        s.settimeout(10)
        s.connect(path)
        try:
            s.send(message)
        except BrokenPipeError:
            # Refused at connect (over a limit): the collector answered and
            # closed before the message was sent; its NAK is still queued.
            pass
        return s.recv(1) if wait else None
    finally:
        s.close()


def modified_copy(src, dest):
    """A copy of an executable with one more byte: another file content."""
    shutil.copyfile(src, dest)
    with open(dest, "ab") as f:
        f.write(b"\0")
    os.chmod(dest, 0o755)
    return dest
