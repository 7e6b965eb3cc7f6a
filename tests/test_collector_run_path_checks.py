"""agt-collector run: a watched log's path is stated again only when an
event other than an append may have changed what it names."""
import os
import signal
import unittest

from run_harness import RunHarness
from strace_support import strace_argv
from test_collector_faults import traced_child


class RunPathChecksTest(unittest.TestCase):
    def test_appends_alone_state_no_path_and_a_rotation_is_still_followed(self):
        # No full scan within the test: what brings a path's stat back is
        # the directory's events alone.
        h = RunHarness(self, sandboxes=["sb-1"], scan_interval_ms=60000)
        trace = os.path.join(h.dir, "strace.log")
        h.deny("sb-1")
        h.start(wrap=strace_argv(trace, "trace=newfstatat,pread64", fds=True))
        # wait_for_count, not wait_expected: that waits three scans.
        h.wait_for_count(len(h.expected))
        appends = 40
        for _ in range(appends):
            h.deny("sb-1")
            h.wait_for_count(len(h.expected))  # a look each
        with open(trace) as f:
            calls = f.read().splitlines()
        path_stats = [c for c in calls if "newfstatat(" in c and '"sb-1/denied.log"' in c]
        log_reads = [c for c in calls if "pread64(" in c and "/sb-1/denied.log>" in c]
        self.assertGreaterEqual(len(log_reads), appends)
        # The first looks state it (the watch is new); appends alone do not.
        self.assertLess(len(path_stats), 5, "the path stated at looks after appends alone:\n"
                        + "\n".join(path_stats[:10]))
        # Renamed away, and the shim's next record in a new file at the
        # name: the directory's events have the next look state the path.
        os.rename(h.log_path("sb-1"), h.log_path("sb-1") + ".1")
        h.deny("sb-1")
        h.wait_for_count(len(h.expected))
        os.kill(traced_child(h.proc.pid), signal.SIGTERM)
        self.assertEqual(h.proc.wait(timeout=30), 0, h.stderr()[-3000:])
        h.assert_exact()
        self.assertIn("rotated: previous file", h.stderr())


if __name__ == "__main__":
    unittest.main()
