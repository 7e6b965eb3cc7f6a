"""Support for the `agt-collector run` end-to-end tests.

A private tree per test: sandboxes/{sandbox_id}/denied.log, a state
directory, an audit file and a key. Denials are made by the real static shim
exec'd through real symlinks (curl, wget, git, ssh) with AGT_DENIED_LOG set;
each carries a unique marker as its last argument, so a test knows the exact
set of entries the audit file must hold: each marker once, none missing, none
extra. The chain is checked by `agt-collector verify` and, independently, by
the stdlib re-implementation of upstream's verifier.
"""
import fcntl
import hashlib
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time

import collector_upstream_verifier
from forward_support import child_pids

from build_paths import BUILD, COLLECTOR, HERE, SHIM  # noqa: F401 (re-exported)
from build_paths import TOP as REPO

# The state directory's checkpoints (collector/tail/checkpoint_journal.h).
JOURNAL = "checkpoints.journal"
JOURNAL_HEADER = b"agt-collector checkpoint journal 1\n"
CHECKPOINT_MAGIC = b"agt-collector checkpoint 1\n"

DENIED_NAMES = ("curl", "wget", "git", "ssh")

FS_IOC_GETFLAGS = 0x80086601
FS_APPEND_FL = 0x20


def append_only(path):
    """Whether `path` carries FS_APPEND_FL."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        flags = struct.unpack("i", fcntl.ioctl(fd, FS_IOC_GETFLAGS, b"\0" * 4))[0]
    finally:
        os.close(fd)
    return bool(flags & FS_APPEND_FL)


CHAIN_HEAD_SLOT = re.compile(
    rb"(agt-collector chain head 2\nseq=(\d+)\n"
    rb"dev=(\d+) ino=(\d+) entries=(\d+) size=(\d+) content_hash=([0-9a-f]*)\n)"
    rb"sha256=([0-9a-f]{64})\n\0*\Z")


def read_chain_head(path):
    """The head chain.head holds, as agt-collector reads it (its newest slot
    whose hash holds; a version 1 file's one head): a dict, or None when
    there is no file. Raises ValueError when no head passes."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        return None
    v1 = re.fullmatch(rb"agt-collector chain head 1\ndev=(\d+) ino=(\d+) entries=(\d+) "
                      rb"size=(\d+) content_hash=([0-9a-f]*)\n", data)
    if v1:
        fields = [int(x) for x in v1.groups()[:4]] + [v1.group(5).decode()]
        return dict(zip(("dev", "ino", "entries", "size", "content_hash"), fields), seq=0)
    best = None
    for at in (0, 4096):
        m = CHAIN_HEAD_SLOT.match(data[at:at + 512])
        if not m or hashlib.sha256(m.group(1)).hexdigest() != m.group(8).decode():
            continue
        head = dict(seq=int(m.group(2)), dev=int(m.group(3)), ino=int(m.group(4)),
                    entries=int(m.group(5)), size=int(m.group(6)),
                    content_hash=m.group(7).decode())
        if best is None or head["seq"] > best["seq"]:
            best = head
    if best is None:
        raise ValueError("%s: no slot holds a chain head" % path)
    return best


class RunHarness:
    """One temporary sandbox tree, one collector at a time."""

    def __init__(self, testcase, scan_interval_ms=200, name="run", sandboxes=()):
        for path in (SHIM, COLLECTOR):
            if not os.access(path, os.X_OK):
                testcase.fail("%s not built (AGT_BUILD_DIR=%s)" % (path, BUILD))
        self.t = testcase
        self.dir = tempfile.mkdtemp(prefix="agt-%s-" % name)
        testcase.addCleanup(self.cleanup)
        self.base = os.path.join(self.dir, "sandboxes")
        self.state = os.path.join(self.dir, "state")
        self.out = os.path.join(self.dir, "audit.jsonl")
        self.key = os.path.join(self.dir, "key.bin")
        self.bin = os.path.join(self.dir, "bin")
        os.makedirs(self.base)
        os.makedirs(self.bin)
        with open(self.key, "wb") as f:
            f.write(os.urandom(32))
        os.chmod(self.key, 0o600)
        for name in DENIED_NAMES:
            os.symlink(SHIM, os.path.join(self.bin, name))
        self.pattern = os.path.join(self.base, "{sandbox_id}", "denied.log")
        self.scan_interval_ms = scan_interval_ms
        self.expected = []  # (sandbox_id, marker), one per denial
        self.counter = 0
        self.proc = None
        self.out_lines = LineCounter(self.out)
        self.stderr_path = os.path.join(self.dir, "collector.stderr")
        self.stderr_file = None
        for sandbox_id in sandboxes:
            self.add_sandbox(sandbox_id)

    def cleanup(self):
        if self.proc is not None and self.proc.poll() is None:
            # Its children go too: under a tracer (start's `wrap`) the
            # collector is one, and a tracer killed leaves its tracee running.
            children = child_pids(self.proc.pid)
            self.proc.kill()
            self.proc.wait()
            for pid in children:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        if self.stderr_file is not None:
            self.stderr_file.close()
        if os.environ.get("AGT_TEST_KEEP_DIRS"):
            sys.stderr.write("kept %s\n" % self.dir)
            return
        # run marks the logs it creates append-only (unless told not to),
        # and such a file cannot be unlinked: the tree would outlive the test.
        # chattr complains of what has no attributes (a socket): rmtree says
        # whether anything is still in the way.
        subprocess.run(["chattr", "-R", "-a", self.dir], capture_output=True)
        shutil.rmtree(self.dir)

    # --- sandboxes and denials -------------------------------------------------

    def log_path(self, sandbox_id):
        return os.path.join(self.base, sandbox_id, "denied.log")

    def add_sandbox(self, sandbox_id):
        os.makedirs(os.path.join(self.base, sandbox_id), exist_ok=True)

    def deny(self, sandbox_id, name="curl", log=None, expect=True):
        """Runs the real shim under `name`; returns the marker it logged."""
        self.counter += 1
        marker = "m%05d-%s" % (self.counter, sandbox_id)
        env = {"PATH": "/usr/bin:/bin", "AGT_DENIED_LOG": log or self.log_path(sandbox_id)}
        r = subprocess.run([os.path.join(self.bin, name), "-x", marker], env=env,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.t.assertEqual(r.returncode, 126, r.stderr)
        if expect:
            self.expected.append((sandbox_id, marker))
        return marker

    def deny_and_wait(self, sandbox_id, times=1):
        """`times` denials, then waits until the audit file holds every one."""
        for _ in range(times):
            self.deny(sandbox_id)
        self.wait_expected()

    def shim_line(self, sandbox_id, name="curl"):
        """A real shim record line (bytes, with its newline), not yet in any log."""
        scratch = os.path.join(self.dir, "scratch.log")
        if os.path.exists(scratch):
            os.unlink(scratch)
        marker = self.deny(sandbox_id, name=name, log=scratch, expect=False)
        with open(scratch, "rb") as f:
            line = f.read()
        os.unlink(scratch)
        return marker, line

    def append_raw(self, sandbox_id, data, path=None):
        with open(path or self.log_path(sandbox_id), "ab") as f:
            f.write(data)

    # --- the collector ---------------------------------------------------------

    def start(self, *extra, syslog="none", config=None, wrap=(), append_only=False):
        """Starts the collector; with `config`, everything else comes from it.
        The tests play the sandbox as root, renaming and truncating its logs:
        append-only logs (the default of run) are asked for by the tests of
        that attribute."""
        self.t.assertTrue(self.proc is None or self.proc.poll() is not None)
        if self.stderr_file is None:
            self.stderr_file = open(self.stderr_path, "ab")
        if config:
            args = [COLLECTOR, "run", "--config", config]
        else:
            args = [COLLECTOR, "run", "--key-file", self.key, "--out", self.out,
                    "--state-dir", self.state, "--watch", self.pattern]
        args += ["--scan-interval", str(self.scan_interval_ms), "--syslog-socket", syslog]
        if not append_only:
            args.append("--no-append-only")
        args = list(wrap) + args + list(extra)
        env = None
        if wrap and "ASAN_OPTIONS" in os.environ:
            # The sanitized build under a tracer (strace): LeakSanitizer
            # cannot stop the world beneath ptrace, so leaks are left to the
            # runs that are not traced.
            env = dict(os.environ, ASAN_OPTIONS=os.environ["ASAN_OPTIONS"] + ":detect_leaks=0")
        before = len(self.stderr_bytes())
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=self.stderr_file,
                                     env=env)
        # Started once it has printed its first line (it has scanned the tree).
        deadline = time.monotonic() + 10
        while b"pattern(s)" not in self.stderr_bytes()[before:]:
            if self.proc.poll() is not None:
                self.t.fail("collector exited at start (%s): %s"
                            % (self.proc.returncode, self.stderr()))
            if time.monotonic() > deadline:
                self.t.fail("collector did not start: " + self.stderr())
            time.sleep(0.01)
        return self.proc

    def stop(self):
        """SIGTERM: must finish in-flight work and exit 0."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.t.fail("collector ignored SIGTERM")
        self.t.assertEqual(rc, 0, self.stderr())

    def start_writer(self, sandboxes, rotate_every=0):
        """A SteadyWriter over `sandboxes`, already running."""
        writer = SteadyWriter(self, sandboxes, rotate_every=rotate_every)
        writer.start()
        return writer

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stderr_bytes(self):
        with open(self.stderr_path, "rb") as f:
            return f.read()

    def stderr(self):
        return self.stderr_bytes().decode("utf-8", "replace")

    # --- the state directory ---------------------------------------------------

    @property
    def journal_path(self):
        return os.path.join(self.state, JOURNAL)

    def checkpoints(self):
        """{sandbox id: checkpoint text} as run loads them (checkpoint_journal.h):
        an older version's SANDBOX.checkpoint files, then every whole frame of
        the journal over them; a last frame cut short is left out."""
        found = {}
        for name in os.listdir(self.state) if os.path.isdir(self.state) else []:
            if name.endswith(".checkpoint"):
                with open(os.path.join(self.state, name), "rb") as f:
                    data = f.read()
                if data.startswith(CHECKPOINT_MAGIC):
                    found[name[:-len(".checkpoint")]] = data[len(CHECKPOINT_MAGIC):]
        try:
            with open(self.journal_path, "rb") as f:
                data = f.read()
        except FileNotFoundError:
            return found
        if not data.startswith(JOURNAL_HEADER):
            return found
        at = len(JOURNAL_HEADER)
        while at < len(data):
            nl = data.find(b"\n", at)
            if nl < 0:
                break
            m = re.fullmatch(rb"frame (\d+) ([0-9a-f]{64})", data[at:nl])
            if m is None:
                raise AssertionError("%s: offset %d: not a frame" % (self.journal_path, at))
            payload = data[nl + 1:nl + 1 + int(m.group(1))]
            if len(payload) < int(m.group(1)) or \
                    hashlib.sha256(payload).hexdigest().encode() != m.group(2):
                break  # the last frame, cut short by a crash
            for line in payload.split(b"\n")[:-1]:
                key, text = line.split(b" ", 1)
                found[key.decode()] = text + b"\n"
            at = nl + 1 + len(payload)
        return found

    def has_checkpoint(self, sandbox_id):
        return sandbox_id in self.checkpoints()

    def read_checkpoint(self, sandbox_id):
        """The checkpoint's text ("dev=... ino=... offset=..."); KeyError: none."""
        return self.checkpoints()[sandbox_id]

    def write_checkpoint(self, sandbox_id, data):
        """Puts back an older checkpoint: the state a crash leaves behind (the
        collector stopped). A frame appended to the journal, as run appends one."""
        payload = sandbox_id.encode() + b" " + data
        frame = b"frame %d %s\n" % (len(payload), hashlib.sha256(payload).hexdigest().encode())
        with open(self.journal_path, "ab") as f:
            f.write(frame + payload)

    def chain_head_entries(self):
        """The entries chain.head names; -1: none yet."""
        head = read_chain_head(os.path.join(self.state, "chain.head"))
        return -1 if head is None else head["entries"]

    # --- the audit file --------------------------------------------------------

    def lines(self):
        if not os.path.exists(self.out):
            return []
        with open(self.out, "rb") as f:
            data = f.read()
        return [l.decode() for l in data.split(b"\n")[:-1]]  # complete lines only

    def line_count(self):
        """How many complete lines the audit file holds; reads only what is new."""
        if self.out_lines.path != self.out:  # a test pointed h.out at another file
            self.out_lines = LineCounter(self.out)
        return self.out_lines.count()

    def entries(self):
        return [json.loads(l) for l in self.lines()]

    def markers(self):
        """(sandbox_id, marker) of each command_denied entry (the collector's
        own entries, e.g. denied_log_suppressed, carry none)."""
        return [(e["sandbox_id"], e["data"]["argv"][-1]) for e in self.entries()
                if e["event_type"] == "command_denied"]

    def events(self, event_type):
        return [e for e in self.entries() if e["event_type"] == event_type]

    def wait_for_count(self, count, timeout=20.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.line_count() >= count:
                return
            if self.proc is not None and self.proc.poll() is not None:
                break
            time.sleep(0.02)
        self.t.fail("audit file has %d entries, expected %d; collector stderr:\n%s"
                    % (self.line_count(), count, self.stderr()[-4000:]))

    def wait_expected(self, timeout=20.0):
        self.wait_for_count(len(self.expected), timeout)
        # A window, not a condition: "no duplicate follows" has no sign to
        # wait for, so a duplicate gets three scans to show up before the
        # exact check. What it would catch is the subject of assert_exact.
        time.sleep(3 * self.scan_interval_ms / 1000.0)

    # --- conditions to wait on (never a fixed sleep) ---------------------------

    def wait_until(self, condition, what, timeout=20.0):
        """Polls `condition()` until true; fails naming `what` on timeout or
        when the collector exits meanwhile."""
        deadline = time.monotonic() + timeout
        while True:
            if self.proc is not None and self.proc.poll() is not None:
                self.t.fail("collector exited while waiting until %s:\n%s"
                            % (what, self.stderr()[-4000:]))
            if condition():
                return
            if time.monotonic() > deadline:
                self.t.fail("timed out waiting until %s; collector stderr:\n%s"
                            % (what, self.stderr()[-4000:]))
            time.sleep(0.02)

    def held_paths(self):
        """What the running collector holds open, as /proc shows it (an
        unlinked file reads "PATH (deleted)")."""
        fd_dir = "/proc/%d/fd" % self.proc.pid
        paths = []
        for name in os.listdir(fd_dir):
            try:
                paths.append(os.readlink(os.path.join(fd_dir, name)))
            except FileNotFoundError:  # closed while listing
                pass
        return paths

    def wait_released(self, path):
        """Until the collector holds nothing at or under `path`: it has seen
        the file (or sandbox directory) go."""
        path = path.rstrip("/")

        def released():
            return not any(p in (path, path + " (deleted)") or p.startswith(path + "/")
                           for p in self.held_paths())
        self.wait_until(released, "the collector lets go of " + path)

    def caught_up(self):
        """Whether every sandbox log has been read to its end and checkpointed
        (the checkpoint names the log's inode and its size as the offset)."""
        checkpoints = None
        for sandbox_id in os.listdir(self.base):
            try:
                st = os.stat(self.log_path(sandbox_id))
            except FileNotFoundError:
                continue
            if checkpoints is None:
                checkpoints = self.checkpoints()
            if sandbox_id not in checkpoints:
                return False
            m = re.search(r"\bino=(\d+) offset=(\d+)\b", checkpoints[sandbox_id].decode())
            if not m or (int(m.group(1)), int(m.group(2))) != (st.st_ino, st.st_size):
                return False
        return True

    def wait_caught_up(self, timeout=60.0):
        self.wait_until(self.caught_up, "every log is read and checkpointed", timeout)

    def assert_exact(self):
        """Each expected marker exactly once, nothing else; the chain verifies."""
        got = self.markers()
        missing = sorted(set(self.expected) - set(got))
        extra = sorted(set(got) - set(self.expected))
        dups = sorted({m for m in got if got.count(m) > 1})
        self.t.assertEqual((missing, extra, dups), ([], [], []),
                           "collector stderr:\n" + self.stderr()[-4000:])
        self.t.assertEqual(sorted(got), sorted(self.expected))
        self.assert_chain()

    def drain(self, count=None, timeout=20.0):
        """Waits until the audit file holds `count` entries (when given) and
        every log is read and checkpointed, then stops (SIGTERM, exit 0)."""
        if count is not None:
            self.wait_for_count(count, timeout)
        self.wait_caught_up()
        self.stop()

    def finish(self, timeout=20.0):
        """Waits for every expected entry, stops (SIGTERM, exit 0), assert_exact."""
        self.wait_expected(timeout)
        self.stop()
        self.assert_exact()

    def assert_each_read_once(self, entries, total):
        """Exactly once: `total` log lines, each in the audit file one time
        (a line is its sandbox and offset)."""
        keys = [(e["sandbox_id"], e["data"]["source"]["offset"]) for e in entries]
        self.t.assertEqual(len(set(keys)), total, "lines lost")
        self.t.assertEqual(len(keys), total, "entries signed twice")

    def assert_chain(self, entries=None):
        """`agt-collector verify` and the upstream re-implementation both accept
        the audit file. `entries`: the file already decoded by the caller. The
        two verifiers run at once: on a large file each takes seconds."""
        verify = subprocess.Popen([COLLECTOR, "verify", "--key-file", self.key, self.out],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            with open(self.key, "rb") as f:
                key = f.read()
            if entries is None:
                result = collector_upstream_verifier.verify_lines(self.lines(), key)
            else:
                result = collector_upstream_verifier.verify_entries(entries, key)
        finally:
            output, _ = verify.communicate()
        self.t.assertEqual(verify.returncode, 0, output)
        self.t.assertTrue(result[0], result)


OWN_EVENT = b'"event_type": "denied_log_suppressed"'


class LineCounter:
    """Counts the complete lines of a file that only grows at its end, reading
    only the bytes past the last newline seen: polling a 200 MB audit file
    every 20 ms must not re-read it whole each time. The collector appends
    and cuts at most a torn last line, never a complete one; a file replaced
    (SIGHUP reopening) or rewritten by a test is noticed because the bytes
    before the counted end changed, and is counted again from its start."""

    TAIL = 64  # bytes kept before the counted end: the end of an entry, unique

    def __init__(self, path):
        self.path = path
        self.end = 0  # offset just past the last newline counted
        self.tail = b""  # the bytes just before self.end
        self.lines = 0

    def count(self):
        try:
            f = open(self.path, "rb")
        except FileNotFoundError:
            self.end, self.tail, self.lines = 0, b"", 0
            return 0
        with f:
            f.seek(self.end - len(self.tail))
            data = f.read()
            if not data.startswith(self.tail):  # not the file counted so far
                self.end, self.tail, self.lines = 0, b"", 0
                f.seek(0)
                data = f.read()
            else:
                data = data[len(self.tail):]
        last = data.rfind(b"\n")
        if last >= 0:
            # Denials only: the collector's own entries (a suppressed log)
            # are not among the expected ones.
            self.lines += data.count(b"\n", 0, last + 1) - sum(
                1 for l in data[:last + 1].split(b"\n")[:-1] if OWN_EVENT in l)
            self.end += last + 1
            self.tail = (self.tail + data[:last + 1])[-self.TAIL:]
        return self.lines


class SteadyWriter(threading.Thread):
    """Denials through the real shim, round robin over sandboxes, until stopped."""

    def __init__(self, harness, sandboxes, rotate_every=0):
        super().__init__(daemon=True)
        self.h = harness
        self.sandboxes = sandboxes
        self.rotate_every = rotate_every
        self.stop_event = threading.Event()
        self.count = 0
        self.rotations = 0
        self.error = None

    def run(self):
        try:
            while not self.stop_event.is_set():
                sid = self.sandboxes[self.count % len(self.sandboxes)]
                self.h.deny(sid, name=("curl", "wget", "git", "ssh")[self.count % 4])
                self.count += 1
                if self.rotate_every and self.count % self.rotate_every == 0:
                    # rename + create (the next denial creates the new file)
                    log = self.h.log_path(sid)
                    self.rotations += 1
                    os.rename(log, "%s.%d" % (log, self.rotations))
        except Exception as e:  # reported by the test
            self.error = e

    def finish(self):
        self.stop_event.set()
        self.join(30)
        if self.error:
            raise self.error
