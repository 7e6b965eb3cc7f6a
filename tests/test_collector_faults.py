"""agt-collector run when its own disk fails: a fault-injection matrix.

Errors are injected from outside into the real collector with
`strace -e inject=...`, filtered by path (-P) so only the audit file's or
the state directory's calls fail. Every cell runs the same story: records
wait in two sandboxes' logs; the collector meets the fault; it either stops
with exit 74 and one clear line naming the call, the file and the error, or
(EINTR) carries on; then more records arrive, the fault clears, a restart
catches up, and the audit file holds every record exactly once with a valid
chain (`agt-collector verify` and the independent re-implementation of
upstream's verifier). Where the failure comes before the entries are known
durable (write, fdatasync), the test also checks that no checkpoint moved:
a failed fdatasync is never taken for success.

Two cells use a real full tmpfs (short writes, then ENOSPC, as the kernel
gives them), one for --out and one for --state-dir, and a last one restarts
the collector on a disk that stays full: each start stops at once with the
same line (a service manager's restart back-off paces it, see
agt-collector(1)), writes nothing and loses nothing.
"""
import os
import re
import signal
import subprocess
import tempfile
import time
import unittest

from run_harness import COLLECTOR, RunHarness
from strace_support import strace_argv
from tmpfs_support import fill_up, mount_tmpfs

SANDBOXES = ("sb-0", "sb-1")
ENOSPC_TEXT = "No space left on device"
EIO_TEXT = "Input/output error"
EDQUOT_TEXT = "Disk quota exceeded"

# name: (what -P names, the injection, the words the error line must hold;
#        None: the call is retried and the collector runs on)
#   "out"   the audit file            "journal"  the checkpoint journal (by path)
#   "state" the state directory       "journal-name" its name as openat gets it, and
#   "head"  chain.head (by path: its in-place writes, after the start made it)
#                                       "journal-tmp-name" its temporary's, as
#                                       openat/renameat get them (relative to the directory)
CELLS = {
    "audit_write_enospc": ("out", "write:error=ENOSPC", ["write", "{out}", ENOSPC_TEXT]),
    "audit_write_eio": ("out", "write:error=EIO", ["write", "{out}", EIO_TEXT]),
    "audit_write_edquot": ("out", "write:error=EDQUOT", ["write", "{out}", EDQUOT_TEXT]),
    "audit_write_eintr": ("out", "write:error=EINTR:when=1..3", None),
    "audit_fdatasync_eio": ("out", "fdatasync:error=EIO", ["fdatasync", "{out}", EIO_TEXT]),
    "audit_fdatasync_enospc": ("out", "fdatasync:error=ENOSPC", ["fdatasync", "{out}", ENOSPC_TEXT]),
    "checkpoint_write_enospc": ("journal", "write:error=ENOSPC",
                                ["checkpoint in {state}", "write checkpoints.journal", ENOSPC_TEXT]),
    "checkpoint_write_eio": ("journal", "write:error=EIO", ["write checkpoints.journal", EIO_TEXT]),
    "checkpoint_write_edquot": ("journal", "write:error=EDQUOT",
                                ["write checkpoints.journal", EDQUOT_TEXT]),
    "checkpoint_write_eintr": ("journal", "write:error=EINTR:when=1..3", None),
    "checkpoint_fdatasync_eio": ("journal", "fdatasync:error=EIO",
                                 ["fdatasync checkpoints.journal", EIO_TEXT]),
    "checkpoint_openat_enospc": ("journal-name", "openat:error=ENOSPC",
                                 ["open checkpoints.journal", ENOSPC_TEXT]),
    "checkpoint_openat_eacces": ("journal-name", "openat:error=EACCES",
                                 ["open checkpoints.journal", "Permission denied"]),
    "checkpoint_create_enospc": ("journal-tmp-name", "openat:error=ENOSPC",
                                 ["open checkpoints.journal.tmp", ENOSPC_TEXT]),
    "checkpoint_rename_eio": ("journal-tmp-name", "renameat,renameat2:error=EIO",
                              ["rename checkpoints.journal.tmp", EIO_TEXT]),
    "checkpoint_rename_enospc": ("journal-tmp-name", "renameat,renameat2:error=ENOSPC",
                                 ["rename checkpoints.journal.tmp", ENOSPC_TEXT]),
    "chain_head_write_eio": ("head", "pwrite64:error=EIO",
                             ["chain head in {state}", "write chain.head", EIO_TEXT]),
    "chain_head_fdatasync_eio": ("head", "fdatasync:error=EIO",
                                 ["chain head in {state}", "fdatasync chain.head", EIO_TEXT]),
    "state_dir_fsync_eio": ("state", "fsync:error=EIO", ["fsync state directory", EIO_TEXT]),
    "state_dir_mkdir_enospc": ("state", "mkdir,mkdirat:error=ENOSPC", ["mkdir", "{state}", ENOSPC_TEXT]),
    "state_dir_mkdir_eacces": ("state", "mkdir,mkdirat:error=EACCES",
                               ["mkdir", "{state}", "Permission denied"]),
}


class Story:
    """One cell: a run tree with records waiting, the faulty run, the restart."""

    def __init__(self, testcase):
        self.t = testcase
        self.h = RunHarness(testcase, scan_interval_ms=100, name="faults", sandboxes=SANDBOXES)
        for sid in SANDBOXES:
            for _ in range(3):
                self.h.deny(sid)

    def run_to_exit(self, wrap=(), timeout=60):
        """Runs the collector (under `wrap`) until it exits by itself; (status, new stderr)."""
        h = self.h
        args = list(wrap) + [COLLECTOR, "run", "--key-file", h.key, "--out", h.out,
                             "--state-dir", h.state, "--watch", h.pattern,
                             "--scan-interval", "100", "--syslog-socket", "none",
                             "--no-append-only"]  # the tests rename and truncate logs
        before = len(h.stderr_bytes()) if os.path.exists(h.stderr_path) else 0
        with open(h.stderr_path, "ab") as err:
            proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=err)
            try:
                status = proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                self.t.fail("the collector did not stop on the fault: " + h.stderr()[-3000:])
        return status, h.stderr_bytes()[before:].decode("utf-8", "replace")

    def run_through(self, wrap):
        """A fault the collector rides out: it keeps running, catches up, stops on SIGTERM."""
        h = self.h
        proc = h.start(wrap=wrap)
        h.wait_expected()
        tracee = traced_child(proc.pid)
        os.kill(tracee, signal.SIGTERM)
        self.t.assertEqual(proc.wait(timeout=30), 0, h.stderr()[-3000:])

    def recover(self):
        """More records while down; the fault cleared; a restart writes everything once."""
        for sid in SANDBOXES:
            self.h.deny(sid)
        self.h.start()
        self.h.finish(timeout=30)


def traced_child(strace_pid):
    """The pid strace started (its only child)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            with open("/proc/%d/task/%d/children" % (strace_pid, strace_pid)) as f:
                kids = f.read().split()
        except FileNotFoundError:
            kids = []
        if kids:
            return int(kids[0])
        time.sleep(0.01)
    raise AssertionError("strace started no process")


def strace_wrap(paths, injection, log):
    """strace injecting `injection` into calls on `paths`, logging those calls
    to `log` (an injected call is marked "(INJECTED)" there)."""
    return strace_argv(log, "inject=" + injection, paths=paths)


def make_cell(name, target, injection, words):
    def test(self):
        story = Story(self)
        h = story.h
        paths = {
            "out": [h.out],
            "journal": [h.journal_path],
            "journal-name": ["checkpoints.journal"],
            "journal-tmp-name": ["checkpoints.journal.tmp"],
            "state": [h.state],
            "head": [os.path.join(h.state, "chain.head")],
        }[target]
        log = os.path.join(h.dir, "strace.log")
        wrap = strace_wrap(paths, injection, log)
        if words is None:
            story.run_through(wrap)
        else:
            status, err = story.run_to_exit(wrap)
            self.assertEqual(status, 74, err)
            error_lines = [l for l in err.splitlines() if l.startswith("agt-collector: error: ")]
            self.assertEqual(len(error_lines), 1, err)
            for word in words:
                self.assertIn(word.format(out=h.out, state=h.state), error_lines[0])
            if target == "out":
                # The entries were never known durable: no checkpoint moved.
                for sid in SANDBOXES:
                    self.assertFalse(h.has_checkpoint(sid), err)
        with open(log) as f:
            self.assertIn("(INJECTED)", f.read())  # the fault did happen
        story.recover()
    test.__name__ = "test_" + name
    test.__doc__ = "%s -> %s" % (injection, "runs on" if words is None else "exit 74, then exactly once")
    return test


class CollectorFaultMatrixTest(unittest.TestCase):
    def setUp(self):
        if os.geteuid() != 0:
            self.fail("the fault matrix needs root (strace on a child is fine, tmpfs mounts are not)")

    def test_the_writers_use_write_alone(self):
        # The matrix injects into write(); pwrite/writev would slip past it.
        story = Story(self)
        h = story.h
        log = os.path.join(h.dir, "strace.log")
        wrap = strace_argv(log, "trace=write,pwrite64,writev,pwritev,pwritev2",
                           paths=[h.out, h.journal_path])
        story.run_through(wrap)
        with open(log) as f:
            calls = {line.split("(")[0].split()[-1] for line in f if "(" in line}
        self.assertEqual(calls, {"write"})
        story.recover()


for _name, (_target, _injection, _words) in CELLS.items():
    setattr(CollectorFaultMatrixTest, "test_" + _name, make_cell(_name, _target, _injection, _words))


class FullTmpfs:
    """A small tmpfs, filled up to its last few KiB by a filler file."""

    def __init__(self, testcase, size_kib=256, leave_bytes=4096):
        self.dir = tempfile.mkdtemp(prefix="agt-faults-tmpfs-")
        testcase.addCleanup(os.rmdir, self.dir)
        mount_tmpfs(testcase, self.dir, "size=%dk,mode=0700" % size_kib)
        self.filler = fill_up(self.dir)
        # Give back a page or none: a batch of entries then fits in part
        # (a short write, then ENOSPC) or not at all.
        size = os.path.getsize(self.filler)
        os.truncate(self.filler, max(0, size - leave_bytes))

    def free(self):
        os.unlink(self.filler)


class CollectorFullDiskTest(unittest.TestCase):
    def test_full_tmpfs_for_out(self):
        story = Story(self)
        h = story.h
        fs = FullTmpfs(self)
        h.out = os.path.join(fs.dir, "audit.jsonl")
        status, err = story.run_to_exit()
        self.assertEqual(status, 74, err)
        self.assertIn("agt-collector: error: run: write %s" % h.out, err)
        self.assertIn(ENOSPC_TEXT, err)
        # The short write was cut back: the file ends on a whole line.
        with open(h.out, "rb") as f:
            data = f.read()
        self.assertTrue(data == b"" or data.endswith(b"\n"))
        fs.free()
        story.recover()

    def test_full_tmpfs_for_state_dir(self):
        story = Story(self)
        h = story.h
        fs = FullTmpfs(self, leave_bytes=0)
        h.state = os.path.join(fs.dir, "state")
        status, err = story.run_to_exit()
        self.assertEqual(status, 74, err)
        self.assertIn(ENOSPC_TEXT, err)
        # The first write there: the chain head at start, or a checkpoint.
        self.assertRegex(err, "(checkpoint|chain head) in " + re.escape(h.state))
        fs.free()
        story.recover()

    def test_persistent_full_disk_stops_every_start_and_loses_nothing(self):
        # The hot crash loop a service manager would see: each start fails at
        # once, with the same line, and changes nothing on disk.
        story = Story(self)
        h = story.h
        fs = FullTmpfs(self, leave_bytes=0)
        h.out = os.path.join(fs.dir, "audit.jsonl")
        lines = []
        for _ in range(3):
            started = time.monotonic()
            status, err = story.run_to_exit(timeout=30)
            self.assertEqual(status, 74, err)
            lines.append([l for l in err.splitlines() if l.startswith("agt-collector: error: ")])
            self.assertLess(time.monotonic() - started, 20)
            with open(h.out, "rb") as f:
                self.assertEqual(f.read(), b"")
            for sid in SANDBOXES:
                self.assertFalse(h.has_checkpoint(sid))
        self.assertEqual(lines[0], lines[1])
        self.assertEqual(lines[1], lines[2])
        self.assertEqual(len(lines[0]), 1)
        fs.free()
        story.recover()


if __name__ == "__main__":
    unittest.main()
