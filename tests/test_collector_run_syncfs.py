"""agt-collector run's commit of many checkpoints at once: the audit file
synced, then the chain head, then one frame of the checkpoint journal with
every source's checkpoint, written (in one write up to 64 KiB) and made
durable by one fdatasync, however many sources moved.

Checked from outside with strace: the order of the calls in a real run
(every write to the audit file is synced before the next journal frame is
written, and no per-source file is staged, synced or renamed), and a failed
fdatasync of the journal: exit 74, and a restart writes every record exactly
once.
"""
import os
import re
import signal
import subprocess
import unittest

from run_harness import COLLECTOR, RunHarness
from strace_support import strace_argv
from test_collector_faults import traced_child

SANDBOXES = ["sb-%d" % i for i in range(6)]


def tree_with_records(testcase, name, per_log):
    """A run tree of SANDBOXES with `per_log` records waiting in each log, and
    the path of the strace log its run writes."""
    h = RunHarness(testcase, scan_interval_ms=100, name=name, sandboxes=SANDBOXES)
    for sid in SANDBOXES:
        for _ in range(per_log):
            h.deny(sid)
    return h, os.path.join(h.dir, "strace.log")


class RunJournalCommitTest(unittest.TestCase):
    def setUp(self):
        if os.geteuid() != 0:
            self.fail("strace on the collector needs root here")

    def test_entries_are_synced_before_any_checkpoint_frame_is_written(self):
        h, log = tree_with_records(self, "journal-order", 3)
        h.start(wrap=strace_argv(log, "trace=write,fdatasync,fsync,syncfs,renameat,renameat2",
                                 fds=True))
        h.wait_expected()
        for sid in SANDBOXES:
            h.deny(sid)  # a second cycle, with every log open
        h.wait_expected()
        h.wait_caught_up()
        os.kill(traced_child(h.proc.pid), signal.SIGTERM)
        self.assertEqual(h.proc.wait(timeout=30), 0, h.stderr()[-3000:])
        h.assert_exact()
        unsynced = False  # written to the audit file since its last sync
        frames = journal_syncs = writes = fdatasyncs = 0
        frame_unsynced = False  # a frame written and not yet fdatasynced
        journal = re.escape(h.journal_path)
        with open(log) as f:
            for line in f:
                if re.search(r"\bwrite\(\d+<%s>" % re.escape(h.out), line):
                    writes += 1
                    unsynced = True
                elif re.search(r"\bfdatasync\(\d+<%s>" % re.escape(h.out), line):
                    fdatasyncs += 1
                    unsynced = False
                elif re.search(r"\bwrite\(\d+<%s>" % journal, line):
                    # A frame past 64 KiB is written in several pieces.
                    frames += 1 if re.search(r'>, "frame ', line) else 0
                    self.assertFalse(unsynced, "a checkpoint frame written before the entries "
                                     "it covers were synced:\n" + line)
                    frame_unsynced = True
                elif re.search(r"\bfdatasync\(\d+<%s>" % journal, line):
                    journal_syncs += 1
                    frame_unsynced = False
                elif re.search(r"\b(syncfs|renameat2?)\(.*\.checkpoint", line) or \
                        re.search(r"\bsyncfs\(", line):
                    self.fail("a per-source checkpoint file or syncfs in the commit:\n" + line)
        self.assertFalse(frame_unsynced, "the last frame was never fdatasynced")
        self.assertGreaterEqual(writes, 2)  # the log's calls were recognised
        self.assertGreaterEqual(fdatasyncs, 2)
        self.assertGreaterEqual(frames, 2)
        self.assertEqual(journal_syncs, frames)  # one fdatasync per frame
        # Each commit is one frame, holding every source its cycle read: some
        # frame names several sources at once. Not necessarily all six: a
        # cycle commits after 100 ms (the batch's time bound), and under
        # strace on a loaded machine reading the six logs can take longer.
        with open(h.journal_path, "rb") as f:
            data = f.read()
        named = [sum(b"\n%s " % sid.encode() in b"\n" + payload for sid in SANDBOXES)
                 for payload in re.split(rb"frame \d+ [0-9a-f]{64}\n", data)[1:]]
        self.assertGreaterEqual(max(named), 2, "every frame holds one source's checkpoint: %s" % named)
        # Two cycles, each source read in both: each is named twice at least.
        self.assertGreaterEqual(sum(named), 2 * len(SANDBOXES), named)
        self.assertEqual([n for n in os.listdir(h.state) if n.endswith(".checkpoint")], [])

    def test_a_failed_journal_fdatasync_stops_and_a_restart_writes_each_record_once(self):
        h, log = tree_with_records(self, "journal-fault", 2)
        args = strace_argv(log, "inject=fdatasync:error=EIO", paths=[h.journal_path]) + [
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
        self.assertIn("fdatasync checkpoints.journal", errors[0])
        self.assertIn("Input/output error", errors[0])
        with open(log) as f:
            self.assertIn("(INJECTED)", f.read())
        # The head was written before the frame: it names the entries,
        # which were durable before either.
        self.assertEqual(h.chain_head_entries(), h.line_count())
        for sid in SANDBOXES:
            h.deny(sid)
        h.start()
        h.finish(timeout=30)
        self.assertEqual(h.chain_head_entries(), h.line_count())


if __name__ == "__main__":
    unittest.main()
