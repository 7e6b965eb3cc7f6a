"""agt-collector run: files a hostile sandbox controls."""
import os
import shutil
import time
import unittest

from run_harness import RunHarness


class RunHostileFilesTest(unittest.TestCase):
    def test_long_line_then_good_lines(self):
        h = RunHarness(self, sandboxes=["sb-1"])
        h.deny("sb-1")
        h.start()
        h.wait_expected()
        h.append_raw("sb-1", b'{"event":"command_denied","argv":["' + b"A" * 200000 + b'"]}\n')
        h.deny("sb-1")
        h.deny("sb-1")
        # Also one still being written while the collector reads (no newline yet).
        h.append_raw("sb-1", b"B" * 150000)
        # The subject: the line is still unfinished while the collector reads
        # it. Nothing outside shows that it has, so a window, not a condition.
        time.sleep(0.5)
        h.append_raw("sb-1", b"B" * 1000 + b"\n")
        h.deny("sb-1")
        h.finish()
        self.assertEqual(h.stderr().count("line longer than the limit"), 2, h.stderr())

    def test_nul_runs_are_rejected_and_the_next_records_kept(self):
        h = RunHarness(self, sandboxes=["sb-1"])
        h.start()
        h.deny("sb-1")
        h.append_raw("sb-1", b"\0" * 5000)  # a stale writer's hole
        h.deny("sb-1")
        marker, line = h.shim_line("sb-1")
        h.append_raw("sb-1", line[:30] + b"\0\0\0" + line[30:])  # NULs inside a record
        h.append_raw("sb-1", b"\0" * 10 + b"\n")
        h.deny("sb-1")
        h.finish()
        self.assertIn("NUL bytes", h.stderr())

    def test_terabyte_sparse_hole_is_skipped(self):
        h = RunHarness(self, sandboxes=["sb-1"])
        h.deny("sb-1")
        h.start()
        h.wait_expected()
        marker, line = h.shim_line("sb-1")
        with open(h.log_path("sb-1"), "r+b") as f:
            f.truncate(1 << 40)  # 1 TiB of hole: reading it would take hours
            f.seek(1 << 40)
            f.write(line)
        h.expected.append(("sb-1", marker))
        h.finish()
        self.assertIn("NUL bytes", h.stderr())

    def test_symlink_swapped_in_for_a_log_is_never_followed(self):
        h = RunHarness(self, sandboxes=["sb-1", "sb-2"])
        # A host file holding a valid record: following the link would import it.
        host_marker, host_line = h.shim_line("sb-1")
        host_file = os.path.join(h.dir, "host-file.log")
        with open(host_file, "wb") as f:
            f.write(host_line)
        h.deny("sb-1")
        h.start()
        h.wait_expected()
        os.unlink(h.log_path("sb-1"))
        os.symlink(host_file, h.log_path("sb-1"))
        # A symlinked sandbox directory, too.
        os.makedirs(os.path.join(h.dir, "host-dir"))
        with open(os.path.join(h.dir, "host-dir", "denied.log"), "wb") as f:
            f.write(host_line)
        os.symlink(os.path.join(h.dir, "host-dir"), os.path.join(h.base, "sb-link"))
        h.deny("sb-2")
        # The subject: several scans (200 ms each) pass, and each refusal is
        # still reported once; only time makes scans happen.
        time.sleep(1.5)
        h.wait_expected()
        self.assertNotIn(host_marker, [m for _, m in h.markers()])
        err = h.stderr()
        self.assertEqual(err.count("sb-1/denied.log: refused"), 1, err)
        self.assertEqual(err.count("sb-link/denied.log: refused"), 1, err)
        # The sandbox puts a real file back: read from its start.
        os.unlink(h.log_path("sb-1"))
        h.deny("sb-1")
        h.finish()

    def test_fifo_device_and_directory_in_place_of_a_log(self):
        h = RunHarness(self)
        for sid in ("sb-fifo", "sb-dev", "sb-dir", "sb-ok"):
            h.add_sandbox(sid)
        os.mkfifo(h.log_path("sb-fifo"))
        os.mknod(h.log_path("sb-dev"), 0o600 | 0o020000, os.makedev(1, 3))  # like /dev/null
        os.makedirs(h.log_path("sb-dir"))
        h.start()
        h.deny("sb-ok")
        h.wait_until(lambda: h.stderr().count(": refused: a ") >= 3,
                     "the FIFO, the device and the directory are refused")
        h.deny_and_wait("sb-ok")  # scans more: each is still reported once
        h.stop()  # a FIFO never makes it hang
        h.assert_exact()
        err = h.stderr()
        self.assertEqual(err.count("sb-fifo/denied.log: refused: a FIFO"), 1, err)
        self.assertEqual(err.count("sb-dev/denied.log: refused: a character device"), 1, err)
        self.assertEqual(err.count("sb-dir/denied.log: refused: a directory"), 1, err)


class RunLimitsTest(unittest.TestCase):
    def test_fd_limit_is_reported_and_every_log_still_read(self):
        # 120 sandboxes under a hard limit of 48 open files: logs that are
        # read and checkpointed are closed and reopened on demand.
        h = RunHarness(self)
        sandboxes = ["sb-%03d" % i for i in range(120)]
        for sid in sandboxes:
            h.add_sandbox(sid)
            marker, line = h.shim_line(sid)
            h.append_raw(sid, line)
            h.expected.append((sid, marker))

        prlimit = shutil.which("prlimit")
        self.assertIsNotNone(prlimit, "prlimit (util-linux) is needed")
        h.start(wrap=[prlimit, "--nofile=48:48"])
        h.wait_expected(timeout=60)
        for sid in sandboxes:  # a second round: each log reopened and resumed
            h.deny(sid)
        h.finish(timeout=60)
        self.assertEqual(h.stderr().count("open file limit reached (RLIMIT_NOFILE 48"), 1,
                         h.stderr()[-3000:])

    def test_inotify_watch_limit_is_reported_and_scans_take_over(self):
        # A private user namespace has its own inotify watch limit
        # (/proc/sys/user/max_inotify_watches), so this never touches the
        # host's. 6 watches: the base and 5 of the 30 sandboxes.
        unshare = shutil.which("unshare")
        self.assertIsNotNone(unshare, "unshare (util-linux) is needed")
        h = RunHarness(self)
        sandboxes = ["sb-%02d" % i for i in range(30)]
        for sid in sandboxes:
            h.add_sandbox(sid)
            h.deny(sid)
        wrap = [unshare, "-U", "-r", "sh", "-c",
                'echo 6 > /proc/sys/user/max_inotify_watches && exec "$@"', "sh"]
        h.start(wrap=wrap)
        h.wait_expected()
        for sid in sandboxes:
            h.deny(sid)
        h.add_sandbox("late")
        h.deny("late")
        h.finish()
        err = h.stderr()
        self.assertEqual(err.count("watch limit reached"), 1, err)
        self.assertIn("max_user_watches", err)


if __name__ == "__main__":
    unittest.main()
