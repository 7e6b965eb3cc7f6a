"""agt-collector run: append-only sandbox logs (FS_APPEND_FL).

The collector creates each sandbox's log (owned by the sandbox directory's
owner, mode 0600) and marks it append-only; the sandbox user (uid 65534, no
CAP_LINUX_IMMUTABLE) can then append records but erase none of them.
"""
import os
import shutil
import signal
import subprocess
import unittest

import erasure_support
from run_harness import RunHarness, append_only
from tmpfs_support import mount_tmpfs

class AppendOnlyLogTest(unittest.TestCase):
    def harness(self, sandboxes, tmpfs=False):
        h = RunHarness(self, name="append-only")
        if tmpfs:  # the sandboxes on a tmpfs of their own
            h.base = os.path.join(h.dir, "tmpfs")
            mount_tmpfs(self, h.base, "size=8m,mode=0755")
            h.pattern = os.path.join(h.base, "{sandbox_id}", "denied.log")
        os.chmod(h.dir, 0o755)  # the sandbox user runs the shim from h.bin
        for sid in sandboxes:
            h.add_sandbox(sid)
            os.chown(os.path.join(h.base, sid), erasure_support.NOBODY, erasure_support.NOBODY)
        return h

    def test_log_created_owned_and_append_only_and_erasure_fails(self):
        h = self.harness(["sb-1"])
        h.start(append_only=True)
        log = h.log_path("sb-1")
        st = os.stat(log)
        self.assertEqual((st.st_uid, st.st_gid, st.st_mode & 0o7777),
                         (erasure_support.NOBODY, erasure_support.NOBODY, 0o600))
        self.assertTrue(append_only(log))
        self.assertIn("append-only: 1 of 1 log(s)", h.stderr())
        # The short version of the erasure measurement: every way fails with
        # EPERM and not one denial is lost.
        for mode in erasure_support.MODES:
            markers, outcomes = erasure_support.deny_then_erase(
                os.path.join(h.bin, "curl"), log, mode, 10, "t")
            self.assertEqual(outcomes, {"EPERM": 10}, mode)
            h.expected += [("sb-1", m) for m in markers]
        h.finish()
        self.assertTrue(append_only(log))

    def test_late_sandbox_gets_its_log_at_once(self):
        h = self.harness([])
        h.start(append_only=True)
        # Made and chowned beside the base, then renamed in: created in place,
        # the collector could see it (and take its owner) before the chown.
        staged = os.path.join(h.dir, "late-staged")
        os.makedirs(staged)
        os.chown(staged, erasure_support.NOBODY, erasure_support.NOBODY)
        os.rename(staged, os.path.join(h.base, "late"))
        # Waited for whole: the log exists from the collector's openat, but is
        # chowned and made append-only by later calls (an earlier version
        # checked the attribute as soon as the name appeared, and under load
        # sometimes looked in between).
        h.wait_until(lambda: os.path.exists(h.log_path("late")) and append_only(h.log_path("late")),
                     "the collector creates the log append-only")
        self.assertEqual(os.stat(h.log_path("late")).st_uid, erasure_support.NOBODY)
        h.deny("late")
        h.finish()

    def test_on_tmpfs_too(self):
        h = self.harness(["sb-1"], tmpfs=True)
        self.assertEqual(subprocess.run(["stat", "-f", "-c", "%T", h.base], capture_output=True,
                                        text=True).stdout.strip(), "tmpfs")
        h.start(append_only=True)
        self.assertTrue(append_only(h.log_path("sb-1")))
        markers, outcomes = erasure_support.deny_then_erase(
            os.path.join(h.bin, "curl"), h.log_path("sb-1"), "unlink", 5, "tmpfs")
        self.assertEqual(outcomes, {"EPERM": 5})
        h.expected += [("sb-1", m) for m in markers]
        h.finish()

    def test_start_line_says_where_it_could_not_be_set(self):
        # Without CAP_LINUX_IMMUTABLE (dropped from the bounding set).
        setpriv = shutil.which("setpriv")
        self.assertIsNotNone(setpriv, "setpriv (util-linux) is needed")
        h = self.harness(["sb-1", "sb-2"])
        h.start(append_only=True, wrap=[setpriv, "--bounding-set", "-linux_immutable",
                                        "--inh-caps", "-linux_immutable"])
        err = h.stderr()
        self.assertIn("append-only: 0 of 2 log(s), not set on 2 (sb-", err)
        self.assertIn("not permitted (the collector lacks CAP_LINUX_IMMUTABLE)", err)
        self.assertFalse(append_only(h.log_path("sb-1")))
        h.deny("sb-1")
        h.finish()

    def test_rotation_through_the_collector(self):
        h = self.harness(["sb-1"])
        h.start(append_only=True)
        for _ in range(3):
            h.deny("sb-1")
        h.wait_expected()
        old_ino = os.stat(h.log_path("sb-1")).st_ino
        h.proc.send_signal(signal.SIGUSR1)
        h.wait_until(lambda: "rotated 1 append-only log(s)" in h.stderr(), "SIGUSR1 is done")
        names = sorted(os.listdir(os.path.join(h.base, "sb-1")))
        self.assertEqual(len(names), 2, names)
        rotated = os.path.join(h.base, "sb-1", names[1])
        self.assertTrue(names[1].startswith("denied.log."), names)
        self.assertEqual(os.stat(rotated).st_ino, old_ino)
        self.assertTrue(append_only(rotated))
        self.assertTrue(append_only(h.log_path("sb-1")))
        self.assertEqual(os.stat(h.log_path("sb-1")).st_size, 0)
        self.assertEqual(os.stat(h.log_path("sb-1")).st_uid, erasure_support.NOBODY)
        for _ in range(3):
            h.deny("sb-1")
        h.finish()


if __name__ == "__main__":
    unittest.main()
