"""agt-collector run: rotations and rewrites the collector does not see
happen, around kill -9 and a slow fdatasync: every record is read exactly
once or the loss is reported by name."""
import os
import signal
import unittest

from run_harness import RunHarness
from strace_support import strace_argv
from test_collector_faults import traced_child


def fdatasync_delayed(h, delay_us):
    """strace delaying the collector's fdatasync of the audit file."""
    log = os.path.join(h.dir, "strace.log")
    return strace_argv(log, "inject=fdatasync:delay_exit=%d" % delay_us, paths=[h.out])


class RunRotationsLostTest(unittest.TestCase):
    def rotate(self, h, sid, to):
        os.rename(h.log_path(sid), h.log_path(sid) + to)

    def test_two_rotations_while_killed_read_the_middle_file(self):
        # denied.log -> .1 -> .2, and a second denied.log -> .1, between the
        # last checkpoint and the first look after a kill -9 (logrotate's
        # shift): the middle file was skipped; now every record is read once.
        for unread_in_checkpointed in (0, 2):
            with self.subTest(unread_in_checkpointed=unread_in_checkpointed):
                h = RunHarness(self, sandboxes=["sb-1"])
                h.start()
                h.deny_and_wait("sb-1", times=2)
                h.wait_caught_up()
                h.kill9()
                for _ in range(unread_in_checkpointed):
                    h.deny("sb-1")  # past the checkpoint, in the file rotated twice
                log = h.log_path("sb-1")
                os.rename(log, log + ".1")
                for _ in range(3):
                    h.deny("sb-1")  # the middle file
                os.rename(log + ".1", log + ".2")
                os.rename(log, log + ".1")
                h.deny("sb-1")  # the current file
                h.start()
                h.finish()
                err = h.stderr()
                self.assertIn("rotated while stopped", err)
                self.assertIn("denied.log.1", err)

    def test_checkpointed_file_gone_is_reported_and_the_rest_read(self):
        # Rotation with one kept file twice: the checkpointed file is
        # overwritten by the next rotation. Its unread records are reported
        # as lost by name; the files rotated after it are read.
        h = RunHarness(self, sandboxes=["sb-1"])
        h.start()
        h.deny_and_wait("sb-1", times=2)
        h.wait_caught_up()
        h.kill9()
        lost = h.deny("sb-1", expect=False)  # in the checkpointed file, past the checkpoint
        log = h.log_path("sb-1")
        os.rename(log, log + ".1")
        h.deny("sb-1")
        os.rename(log, log + ".1")  # replaces (unlinks) the checkpointed file
        h.deny("sb-1")
        h.start()
        h.finish()
        err = h.stderr()
        self.assertIn("is gone: any records it held past offset", err)
        self.assertNotIn(lost, [m for _, m in h.markers()])

    def rewrite_during_slow_sync(self, same_bytes):
        h = RunHarness(self, sandboxes=["sb-1"])
        h.deny("sb-1")
        h.start(wrap=fdatasync_delayed(h, 1500000))
        h.wait_expected()
        log = h.log_path("sb-1")
        before = h.line_count()
        first = [h.deny("sb-1") for _ in range(3)]
        # The entries are written; their fdatasync takes 1.5 s: rewrite the
        # log to the very same size while it runs.
        h.wait_for_count(before + 3)
        with open(log, "rb") as f:
            data = f.read()
        if same_bytes:
            new = data
        else:
            new = data
            for i, marker in enumerate(first):
                fresh = "m%05d-sb-1" % (90000 + h.counter + i)
                new = new.replace(marker.encode(), fresh.encode())
                h.expected.append(("sb-1", fresh))
        self.assertEqual(len(new), len(data))
        with open(log, "r+b") as f:
            f.truncate(0)
            f.write(new)
        # SIGTERM to the collector under strace (strace itself would only detach).
        h.wait_expected(timeout=30)
        tracee = traced_child(h.proc.pid)
        os.kill(tracee, signal.SIGTERM)
        self.assertEqual(h.proc.wait(timeout=30), 0, h.stderr()[-3000:])
        h.assert_exact()

    def test_truncate_and_rewrite_to_the_same_size_during_a_slow_sync(self):
        # New bytes in place of read ones: read, not counted as already read.
        self.rewrite_during_slow_sync(same_bytes=False)

    def test_rewrite_with_the_same_bytes_during_a_slow_sync_signs_no_id_twice(self):
        self.rewrite_during_slow_sync(same_bytes=True)

    def test_a_rotated_file_an_old_writer_appends_to_is_read_on_after_a_restart(self):
        # A writer that opened the log before its rotation keeps appending to
        # the rotated file after the collector let it go. After a restart
        # that finds the log rotated again, that file is read on from where
        # reading stopped (the checkpoint keeps the files let go), not again
        # from its start: its first lines lie further back than the
        # restart's window of recent entries.
        h = RunHarness(self, sandboxes=["sb-1"])
        log = h.log_path("sb-1")
        writer = open(log, "ab", buffering=0)  # the old writer, holding the file
        self.addCleanup(writer.close)
        for _ in range(3):
            writer.write(h.shim_line("sb-1")[1])
        h.start()
        h.wait_for_count(3)
        h.wait_caught_up()
        os.rename(log, log + ".1")
        # Past the window (two cycles of 4096 and 256 each: 8704).
        past_the_window = 8800
        h.append_raw("sb-1", h.shim_line("sb-1")[1] * past_the_window)
        h.wait_for_count(3 + past_the_window, timeout=120)
        h.wait_released(log + ".1")  # its wait after the rotation is over
        h.append_raw("sb-1", h.shim_line("sb-1")[1])
        h.wait_until(lambda: b" gone=" in h.read_checkpoint("sb-1"),
                     "the checkpoint names the file let go")
        h.kill9()
        for _ in range(2):
            writer.write(h.shim_line("sb-1")[1])
        # Rotated again while stopped (logrotate's shift): the restart looks
        # at every denied.log.* changed since the checkpoint, and the old
        # writer's file is one of them.
        os.rename(log + ".1", log + ".2")
        os.rename(log, log + ".1")
        h.append_raw("sb-1", h.shim_line("sb-1")[1])
        h.start()
        total = 3 + past_the_window + 1 + 2 + 1
        h.wait_for_count(total, timeout=60)
        h.wait_caught_up()
        h.wait_expected()  # three scans for a duplicate to show
        h.stop()
        entries = h.entries()
        keys = [(e["data"]["source"]["inode"], e["data"]["source"]["offset"]) for e in entries]
        self.assertEqual(len(set(keys)), total)
        self.assertEqual(len(keys), total, "entries signed twice")
        self.assertIn("grew after it was let go; reading it on from offset", h.stderr())
        h.assert_chain(entries)


if __name__ == "__main__":
    unittest.main()
