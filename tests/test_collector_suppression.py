"""agt-collector run: a log the sandbox suppressed is a signed entry.

A symlink, FIFO or directory in the log's place, a mode that makes it
unusable, or its removal: each occurrence is a denied_log_suppressed entry
(sandbox, what was found, when), counted in the stop line; where the
collector owns the log (append-only) it puts it right and says so.
"""
import os
import unittest

import erasure_support
from run_harness import RunHarness

EVENT = "denied_log_suppressed"


class SuppressionTest(unittest.TestCase):
    def found(self, h):
        return [(e["sandbox_id"], e["data"]["found"], e["data"]["restored"])
                for e in h.events(EVENT)]

    def test_each_hostile_shape_is_recorded_once_per_occurrence(self):
        sandboxes = ["sb-link", "sb-fifo", "sb-dir", "sb-mode", "sb-dirmode", "sb-gone", "sb-ok"]
        h = RunHarness(self, sandboxes=sandboxes, name="suppression")
        for sid in sandboxes:
            h.deny(sid)
        h.start()
        h.wait_expected()
        for sid in ("sb-link", "sb-fifo", "sb-dir", "sb-gone"):
            os.unlink(h.log_path(sid))
        os.symlink("/etc/passwd", h.log_path("sb-link"))
        os.mkfifo(h.log_path("sb-fifo"))
        os.mkdir(h.log_path("sb-dir"))
        os.chmod(h.log_path("sb-mode"), 0)
        os.chmod(os.path.join(h.base, "sb-dirmode"), 0)
        h.wait_until(lambda: len(h.events(EVENT)) >= 9, "nine suppressions are recorded")
        h.deny_and_wait("sb-ok")  # more looks and scans: nothing is recorded twice
        h.stop()
        got = sorted(self.found(h))
        removed = [f for f in got if f[1].startswith("removed (file ")]
        self.assertEqual(sorted(sid for sid, _, _ in removed),
                         ["sb-dir", "sb-fifo", "sb-gone", "sb-link"], got)
        others = sorted((sid, what) for sid, what, _ in got if not what.startswith("removed"))
        self.assertEqual(others, [
            ("sb-dir", "a directory in place of the log"),
            ("sb-dirmode", "mode 0000 on the log's directory"),
            ("sb-fifo", "a FIFO in place of the log"),
            ("sb-link", "a symbolic link in place of the log"),
            ("sb-mode", "mode 0000 on the log"),
        ])
        self.assertFalse(any(restored for _, _, restored in got))
        for e in h.events(EVENT):
            self.assertEqual(e["resource"], h.log_path(e["sandbox_id"]))
            self.assertEqual(e["agent_did"], "did:agt:sandbox:" + e["sandbox_id"])
            self.assertRegex(e["timestamp"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?\+00:00$")
        self.assertIn("9 log suppression(s) recorded (0 restored)", h.stderr())
        h.assert_exact()  # the chain (with these entries) verifies

    def test_owned_log_directory_mode_is_restored(self):
        h = RunHarness(self, name="suppression-owned")
        os.chmod(h.dir, 0o755)
        h.add_sandbox("sb-1")
        sandbox_dir = os.path.join(h.base, "sb-1")
        os.chown(sandbox_dir, erasure_support.NOBODY, erasure_support.NOBODY)
        mode_before = os.stat(sandbox_dir).st_mode & 0o7777
        h.start(append_only=True)
        log = h.log_path("sb-1")

        def sandbox_hides_its_log():
            os.chmod(sandbox_dir, 0)
            return True
        erasure_support.as_sandbox_user(sandbox_hides_its_log)
        h.wait_until(lambda: h.events(EVENT), "the chmod is recorded")
        h.wait_until(lambda: os.stat(sandbox_dir).st_mode & 0o7777 == mode_before,
                     "the directory's mode is put back")
        h.deny("sb-1")
        h.finish()
        [e] = h.events(EVENT)
        self.assertEqual(e["data"]["found"], "mode 0000 on the log's directory")
        self.assertTrue(e["data"]["restored"])
        self.assertEqual(e["data"]["restoration"],
                         "directory mode %04o put back" % mode_before)
        self.assertIn("restored: directory mode", h.stderr())
        self.assertTrue(os.path.exists(log))

    def test_a_sandbox_flipping_its_directory_mode_costs_a_count_not_an_entry_per_look(self):
        # Through the sandbox quota's window: the first occurrence of a kind
        # is written at once, the rest are counted into one entry when the
        # window ends (here: at SIGTERM), as forged socket messages are.
        h = RunHarness(self, name="suppression-flips")
        os.chmod(h.dir, 0o755)
        h.add_sandbox("sb-1")
        sandbox_dir = os.path.join(h.base, "sb-1")
        os.chown(sandbox_dir, erasure_support.NOBODY, erasure_support.NOBODY)
        mode_before = os.stat(sandbox_dir).st_mode & 0o7777
        h.start(append_only=True)

        def sandbox_hides_its_log():
            os.chmod(sandbox_dir, 0)
            return True
        flips = 10
        for _ in range(flips):
            erasure_support.as_sandbox_user(sandbox_hides_its_log)
            h.wait_until(lambda: os.stat(sandbox_dir).st_mode & 0o7777 == mode_before,
                         "the directory's mode is put back")
        h.deny("sb-1")
        h.finish()
        got = h.events(EVENT)
        first = [e for e in got if "repeats" not in e["data"]]
        summaries = [e for e in got if "repeats" in e["data"]]
        # One window, or two when the flips straddle a minute's end.
        self.assertIn(len(first), (1, 2), got)
        self.assertLessEqual(len(summaries), len(first))
        self.assertEqual(len(first) + sum(e["data"]["repeats"] for e in summaries), flips)
        for e in summaries:
            self.assertEqual(e["data"]["found"], "mode 0000 on the log's directory")
            self.assertEqual(e["data"]["interval_seconds"], 60)
            self.assertEqual(e["data"]["window_start"] % 60, 0)
            self.assertTrue(e["data"]["restored"])
        self.assertIn("%d log suppression(s) recorded (%d restored)" % (flips, flips), h.stderr())


if __name__ == "__main__":
    unittest.main()
