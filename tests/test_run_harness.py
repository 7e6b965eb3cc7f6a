"""The `run` tests' harness leaves nothing behind: its tree goes even when
run made a log append-only (which cannot be unlinked), and a collector
started under a tracer goes with the tracer (a tracer killed leaves its
tracee running)."""
import os
import time
import unittest

from forward_support import child_pids
from run_harness import RunHarness, append_only
from strace_support import strace_argv


def gone(pid):
    """Whether `pid` has exited (reaped, or a zombie)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


class RunHarnessCleanupTest(unittest.TestCase):
    def test_cleanup_removes_an_append_only_log_and_a_traced_collector(self):
        inner = unittest.TestCase()  # its cleanups are the harness's alone
        self.addCleanup(inner.doCleanups)  # should this test fail before it calls them
        h = RunHarness(inner, sandboxes=["sb-1"])
        h.start(append_only=True, wrap=strace_argv(os.devnull))
        collector, = child_pids(h.proc.pid)
        h.wait_until(lambda: append_only(h.log_path("sb-1")), "run marks the log append-only")
        self.assertTrue(inner.doCleanups(), "the harness's cleanup failed")
        self.assertFalse(os.path.exists(h.dir), os.listdir(h.dir) if os.path.exists(h.dir) else "")
        deadline = time.monotonic() + 10
        while not gone(collector) and time.monotonic() < deadline:
            time.sleep(0.02)
        self.assertTrue(gone(collector), "the traced collector outlived the cleanup")


if __name__ == "__main__":
    unittest.main()
