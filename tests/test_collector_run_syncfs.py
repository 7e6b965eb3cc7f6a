"""agt-collector run's commit of many checkpoints at once: the audit file
synced, then the chain head and the checkpoints staged, one syncfs of the
state directory's file system for all of them, and only then renamed into
place.

Checked from outside with strace: the order of the calls in a real run
(every write to the audit file is synced before the next checkpoint rename),
and a failed syncfs: exit 74, no checkpoint and no chain head moved, and a
restart writes every record exactly once.
"""
import os
import re
import signal
import subprocess
import unittest

from run_harness import COLLECTOR, RunHarness
from test_collector_faults import traced_child

# More than the 4 checkpoints a cycle fsyncs one by one (tail_engine_commit.cc).
SANDBOXES = ["sb-%d" % i for i in range(6)]


def tree_with_records(testcase, name, per_log):
    """A run tree of SANDBOXES with `per_log` records waiting in each log, and
    the path of the strace log its run writes."""
    h = RunHarness(testcase, scan_interval_ms=100, name=name, sandboxes=SANDBOXES)
    for sid in SANDBOXES:
        for _ in range(per_log):
            h.deny(sid)
    return h, os.path.join(h.dir, "strace.log")


def chain_head_entries(h):
    with open(os.path.join(h.state, "chain.head")) as f:
        return int(re.search(r"entries=(\d+)", f.read()).group(1))


class RunSyncfsTest(unittest.TestCase):
    def setUp(self):
        if os.geteuid() != 0:
            self.fail("strace on the collector needs root here")

    def test_entries_are_synced_before_any_checkpoint_is_renamed(self):
        h, log = tree_with_records(self, "syncfs-order", 3)
        h.start(wrap=["strace", "-f", "-qq", "-y", "-o", log, "-e",
                      "trace=write,fdatasync,fsync,syncfs,renameat,renameat2"])
        h.wait_expected()
        for sid in SANDBOXES:
            h.deny(sid)  # a second cycle, with every log open
        h.wait_expected()
        h.wait_caught_up()
        os.kill(traced_child(h.proc.pid), signal.SIGTERM)
        self.assertEqual(h.proc.wait(timeout=30), 0, h.stderr()[-3000:])
        h.assert_exact()
        unsynced = False  # written to the audit file since its last sync
        renames = 0
        syncfs_calls = 0
        writes = fdatasyncs = 0
        with open(log) as f:
            for line in f:
                if re.search(r"\bwrite\(\d+<%s>" % re.escape(h.out), line):
                    writes += 1
                    unsynced = True
                elif re.search(r"\bfdatasync\(\d+<%s>" % re.escape(h.out), line):
                    fdatasyncs += 1
                    unsynced = False
                elif re.search(r"\bsyncfs\(", line) and line.rstrip().endswith("= 0"):
                    syncfs_calls += 1
                    unsynced = False
                elif re.search(r"\brenameat2?\(.*\.checkpoint\"", line):
                    renames += 1
                    self.assertFalse(unsynced, "a checkpoint renamed before the entries it "
                                     "covers were synced:\n" + line)
        self.assertGreaterEqual(writes, 2)  # the log's calls were recognised
        self.assertGreaterEqual(fdatasyncs, 2)
        self.assertGreaterEqual(renames, len(SANDBOXES))
        self.assertGreaterEqual(syncfs_calls, 1)  # the batch path was taken

    def test_a_failed_syncfs_moves_nothing_and_a_restart_writes_each_record_once(self):
        h, log = tree_with_records(self, "syncfs-fault", 2)
        args = ["strace", "-f", "-qq", "-o", log, "-e", "inject=syncfs:error=EIO",
                COLLECTOR, "run", "--key-file", h.key, "--out", h.out, "--state-dir", h.state,
                "--watch", h.pattern, "--scan-interval", "100", "--syslog-socket", "none",
                "--no-append-only"]
        with open(h.stderr_path, "ab") as err:
            proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=err)
            status = proc.wait(timeout=60)
        err = h.stderr()
        self.assertEqual(status, 74, err)
        errors = [l for l in err.splitlines() if l.startswith("agt-collector: error: ")]
        self.assertEqual(len(errors), 1, err)
        self.assertIn("syncfs", errors[0])
        self.assertIn("Input/output error", errors[0])
        with open(log) as f:
            self.assertIn("(INJECTED)", f.read())
        # The entries were never known durable: no checkpoint, and the head
        # still names none of them.
        for sid in SANDBOXES:
            self.assertFalse(os.path.exists(h.checkpoint_path(sid)), err)
        self.assertEqual(chain_head_entries(h), 0)
        for sid in SANDBOXES:
            h.deny(sid)
        h.start()
        h.finish(timeout=30)
        self.assertEqual(chain_head_entries(h), h.line_count())


if __name__ == "__main__":
    unittest.main()
