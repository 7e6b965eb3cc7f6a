"""agt-collector status --state-dir DIR: a run daemon's sources, lag, last
entry and last error for a person, read from the state directory and the
files it names; checked while the daemon runs, after it stopped and after it
was killed, under strace to show it never signals, connects, locks or writes."""
import os
import re
import signal
import subprocess
import tempfile
import unittest

from build_paths import COLLECTOR
from forward_support import child_pids
from run_harness import RunHarness
from strace_support import strace_argv


def status(state_dir, wrap=()):
    return subprocess.run(list(wrap) + [COLLECTOR, "status", "--state-dir", state_dir],
                          capture_output=True, text=True, timeout=60)


class StatusTest(unittest.TestCase):
    def setUp(self):
        self.h = RunHarness(self, sandboxes=["sb-1", "sb-2"], name="status")

    def shown(self):
        r = status(self.h.state)
        self.assertEqual((r.returncode, r.stderr), (0, ""), r.stdout)
        return r.stdout

    def test_a_running_daemon_then_a_stopped_one(self):
        h = self.h
        h.start("--metrics-interval", "1")
        h.deny_and_wait("sb-1", times=2)
        h.append_raw("sb-1", b"hello\n")  # rejected: the last error
        partial = b'{"argv":["still being written'
        h.append_raw("sb-2", partial)
        h.wait_until(lambda: "sb-2 %s: lag %d bytes" % (h.log_path("sb-2"), len(partial))
                     in self.shown() and "rejected" in self.shown(),
                     "status shows sb-2's lag and the rejection")
        out = self.shown()
        self.assertIn("state directory: %s\n" % h.state, out)
        self.assertRegex(out, r"\ndaemon: running, pid %d, since \d{4}-\d\d-\d\dT" % h.proc.pid)
        self.assertIn("audit file: %s\n" % h.out, out)
        last = h.entries()[-1]
        self.assertIn("last entry written: entry 2, %s, command_denied\n" % last["timestamp"], out)
        self.assertIn("sources: 2\n", out)
        size = os.path.getsize(h.log_path("sb-1"))
        self.assertIn("  sb-1 %s: lag 0 bytes (read to offset %d of %d)\n"
                      % (h.log_path("sb-1"), size, size), out)
        self.assertRegex(out, r"\nlast error: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ warning: %s: offset "
                         r"\d+: rejected: " % re.escape(h.log_path("sb-1")))
        # It reads, nothing else: no signal, socket, lock or write but to stdout.
        trace = os.path.join(h.dir, "status.strace")
        r = status(h.state, wrap=strace_argv(
            trace, "trace=kill,tkill,tgkill,pidfd_send_signal,socket,connect,"
                   "flock,fcntl,open,openat,write,rename,renameat,renameat2,"
                   "unlink,unlinkat,mkdir,mkdirat,truncate,ftruncate"))
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(trace) as f:
            calls = [line.split(None, 1)[1] for line in f.read().splitlines()
                     if not line.split(None, 1)[1].startswith("+++")]
        self.assertTrue(any(c.startswith("openat(") for c in calls), calls)
        for call in calls:
            name = call.split("(", 1)[0]
            self.assertIn(name, ("openat", "open", "write", "fcntl"), call)
            if name in ("openat", "open"):
                self.assertNotRegex(call, r"O_WRONLY|O_RDWR|O_CREAT|O_TRUNC", call)
            if name == "write":
                self.assertRegex(call, r"^write\([12],", call)
            if name == "fcntl":
                self.assertNotRegex(call, r"F_SETLK|F_OFD|F_GETLK", call)
        h.stop()
        out = self.shown()
        self.assertRegex(out, r"\ndaemon: stopped at \S+ with exit status 0 \(started \S+, pid %d\)"
                         % h.proc.pid)
        self.assertIn("last entry written: entry 2, ", out)

    def test_a_killed_daemon_and_a_forwarder_behind(self):
        h = self.h
        h.start("--metrics-interval", "1", "--forward", "syslog+tcp://127.0.0.1:9")
        h.deny_and_wait("sb-2", times=3)
        h.wait_until(lambda: "3 entries (%d bytes) not acknowledged yet" % os.path.getsize(h.out)
                     in self.shown(), "status shows the forwarder's lag")
        forwarders = child_pids(h.proc.pid)
        self.assertEqual(len(forwarders), 1)
        h.kill9()
        # Outside systemd's cgroup nothing stops an orphaned forwarder: the test does.
        for pid in forwarders:
            os.kill(pid, signal.SIGKILL)
        out = self.shown()
        self.assertRegex(out, r"\ndaemon: not running; pid \d+ started \S+ was last seen \S+ and "
                         r"did not stop cleanly")
        self.assertIn("forwarding:\n", out)

    def test_a_checkpoint_frame_being_written_is_left_out_and_damage_is_said(self):
        # status reads the journal while run appends to it: a frame cut short
        # (as one being written looks) is left out, the checkpoints before it
        # shown; a damaged frame with frames after it is said per source.
        h = self.h
        h.start("--metrics-interval", "1")
        h.deny_and_wait("sb-1", times=2)
        h.wait_caught_up()
        h.stop()
        size = os.path.getsize(h.log_path("sb-1"))
        read_to = "  sb-1 %s: lag 0 bytes (read to offset %d of %d)\n" % (h.log_path("sb-1"),
                                                                         size, size)
        self.assertIn(read_to, self.shown())
        with open(h.journal_path, "rb") as f:
            whole = f.read()
        moved = h.read_checkpoint("sb-1").replace(b"offset=%d " % size, b"offset=1 ")
        h.write_checkpoint("sb-1", moved)
        with open(h.journal_path, "rb") as f:
            with_frame = f.read()
        self.assertEqual(h.read_checkpoint("sb-1"), moved)
        for cut in (len(whole) + 1, len(whole) + 30, len(with_frame) - 1):
            with open(h.journal_path, "wb") as f:
                f.write(with_frame[:cut])
            self.assertIn(read_to, self.shown(), "cut at %d" % cut)
        # The frame whole again, and one after it: the first one's bytes
        # damaged in place, the state is said to be unreadable, not guessed.
        damaged = bytearray(with_frame)
        damaged[len(whole) - 5] ^= 1  # inside the frame before the added one
        with open(h.journal_path, "wb") as f:
            f.write(bytes(damaged))
        out = self.shown()
        self.assertIn("  sb-1 %s: checkpoint unreadable: checkpoints.journal: offset "
                      % h.log_path("sb-1"), out)
        self.assertIn("damaged", out)
        # run refuses to start on it (exit 74), with the same words.
        r = subprocess.run([COLLECTOR, "run", "--key-file", h.key, "--out", h.out,
                            "--state-dir", h.state, "--watch", h.pattern,
                            "--syslog-socket", "none", "--no-append-only"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 74, r.stderr)
        self.assertIn("checkpoints unusable: checkpoints.journal: offset", r.stderr)
        self.assertIn("damaged", r.stderr)

    def test_what_is_not_a_state_directory_is_said(self):
        with tempfile.TemporaryDirectory() as tmp:
            missing = os.path.join(tmp, "missing")
            r = status(missing)
            self.assertEqual(r.returncode, 66)
            self.assertEqual(r.stderr, "agt-collector: error: status: open state directory %s: "
                             "No such file or directory\n" % missing)
            a_file = os.path.join(tmp, "file")
            open(a_file, "w").close()
            r = status(a_file)
            self.assertEqual(r.returncode, 66)
            self.assertIn("Not a directory", r.stderr)
            r = status(tmp)
            self.assertEqual(r.returncode, 66)
            self.assertIn("%s is not a state directory of agt-collector run" % tmp, r.stderr)
            with open(os.path.join(tmp, "run.status"), "w") as f:
                f.write('{"pid": "one"}\n')
            r = status(tmp)
            self.assertEqual(r.returncode, 66)
            self.assertIn("run.status: a field is missing or of the wrong type", r.stderr)
            os.unlink(os.path.join(tmp, "run.status"))
            os.mkdir(os.path.join(tmp, "run.status"))
            r = status(tmp)
            self.assertEqual(r.returncode, 66, r.stdout)
            self.assertIn("run.status", r.stderr)
            r = subprocess.run([COLLECTOR, "status"], capture_output=True, text=True)
            self.assertEqual(r.returncode, 64)
            self.assertIn("needs --state-dir DIR", r.stderr)


if __name__ == "__main__":
    unittest.main()
