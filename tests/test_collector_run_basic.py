"""agt-collector run: basic tailing, late sandboxes, restarts, signals."""
import json
import os
import shutil
import signal
import subprocess
import time
import unittest

from run_harness import COLLECTOR, RunHarness


class RunBasicTest(unittest.TestCase):
    def test_tails_existing_and_late_sandboxes_exactly_once(self):
        h = RunHarness(self, sandboxes=["sb-1"])
        h.deny("sb-1")  # before start: read from offset 0
        h.start()
        h.deny("sb-1", name="wget")
        # A sandbox directory (and its log) that appears after start.
        h.add_sandbox("late.sb_2")
        h.deny("late.sb_2", name="git")
        h.deny("late.sb_2", name="ssh")
        h.finish()
        entries = h.entries()
        by_marker = {e["data"]["argv"][-1]: e for e in entries}
        late = [e for e in entries if e["sandbox_id"] == "late.sb_2"]
        self.assertEqual(len(late), 2)
        for e in late:
            self.assertEqual(e["agent_did"], "did:agt:sandbox:late.sb_2")
            self.assertEqual(e["data"]["source"]["file"], h.log_path("late.sb_2"))
        self.assertEqual(sorted(e["resource"] for e in entries), ["curl", "git", "ssh", "wget"])
        self.assertTrue(all(e["entry_id"].startswith("audit_") for e in by_marker.values()))

    def test_base_directory_created_after_start(self):
        h = RunHarness(self)
        os.rmdir(h.base)
        h.start()
        self.assertIn("retrying at every scan", h.stderr())
        h.add_sandbox("sb-1")  # makes the base directory too
        h.deny_and_wait("sb-1")
        h.add_sandbox("sb-2")  # now seen through the base's inotify watch
        h.deny("sb-2")
        h.finish()

    def test_restart_resumes_without_duplicates(self):
        h = RunHarness(self, sandboxes=["sb-1"])
        h.start()
        h.deny_and_wait("sb-1", times=5)
        h.stop()
        for _ in range(3):
            h.deny("sb-1")  # written while stopped
        h.start()
        h.deny_and_wait("sb-1")
        h.stop()
        h.start()  # nothing new: nothing written again
        h.stop()  # finishes what the start found: a re-read would be written now
        h.assert_exact()
        self.assertEqual(len(h.lines()), 9)

    def test_partial_line_across_restart_is_emitted_once(self):
        h = RunHarness(self, sandboxes=["sb-1"])
        marker, line = h.shim_line("sb-1")
        h.deny("sb-1")
        h.start()
        h.wait_expected()
        # Half a record, then stop: nothing of it may be emitted yet.
        h.append_raw("sb-1", line[:40])
        h.stop()  # reads the append's pending inotify event before it exits
        self.assertEqual(len(h.lines()), 1)
        h.start()
        # The subject: the rest arrives after the restarted collector has had
        # time to read the half again. Nothing outside shows that it has, so
        # this is a window, not a condition.
        time.sleep(0.3)
        h.append_raw("sb-1", line[40:])
        h.expected.append(("sb-1", marker))
        h.deny("sb-1")
        h.finish()

    def test_sighup_reopens_the_output_and_starts_a_new_chain(self):
        h = RunHarness(self, sandboxes=["sb-1"])
        h.start()
        h.deny_and_wait("sb-1", times=2)
        rotated = h.out + ".1"
        os.rename(h.out, rotated)  # logrotate's move
        h.proc.send_signal(signal.SIGHUP)
        h.wait_until(lambda: os.path.exists(h.out), "SIGHUP makes a new output", timeout=10)
        first = h.expected[:]
        h.expected = []
        h.deny_and_wait("sb-1")
        h.stop()
        h.assert_exact()  # the new file: its own chain, from ""
        self.assertEqual(h.entries()[0]["previous_hash"], "")
        h.out, h.expected = rotated, first
        h.assert_exact()
        self.assertIn("SIGHUP: reopened", h.stderr())

    def test_sandbox_churn_gives_slots_back(self):
        h = RunHarness(self)
        h.start()
        for round_ in range(3):
            ids = ["r%d-sb-%02d" % (round_, i) for i in range(20)]
            for sid in ids:
                h.add_sandbox(sid)
                h.deny(sid)
            h.wait_expected()
            for sid in ids:
                shutil.rmtree(os.path.join(h.base, sid))
            for sid in ids:  # seen gone: retired at the next scan
                h.wait_released(os.path.join(h.base, sid))
        h.add_sandbox("last")
        h.deny("last")
        h.finish()
        self.assertIn("1 sandbox(es) watched", h.stderr())

    def test_labels_and_limits_from_the_config(self):
        h = RunHarness(self)
        config = os.path.join(h.dir, "collector.json")
        with open(config, "w") as f:
            json.dump({"output": h.out, "key_file": h.key, "state_dir": h.state,
                       "sources": [{"pattern": h.pattern, "environment": "prod",
                                    "compute_driver": "docker", "session_id": "sess-7"}],
                       "limits": {"max_line_size": "1KiB"}}, f)
        os.chmod(config, 0o600)
        h.add_sandbox("sb-1")
        h.start(config=config)
        h.deny("sb-1")
        h.append_raw("sb-1", b'{"argv":["' + b"x" * 2000 + b'"]}\n')  # over 1 KiB
        h.deny("sb-1")
        h.finish()
        for e in h.entries():
            self.assertEqual((e["environment"], e["compute_driver"], e["session_id"],
                              e["sandbox_id"], e["agent_did"]),
                             ("prod", "docker", "sess-7", "sb-1", "did:agt:sandbox:sb-1"))
        self.assertIn("line longer than the limit (2013 bytes, limit 1024)", h.stderr())

    def test_bad_arguments_are_usage_errors(self):
        h = RunHarness(self)
        for args in (["--watch", "/tmp/no-placeholder/denied.log"],
                     ["--watch", "/tmp/{sandbox_id}x/denied.log"],
                     ["--scan-interval", "abc"],
                     ["--bogus", "1"]):
            full = [COLLECTOR, "run", "--key-file", h.key, "--out", h.out,
                    "--state-dir", h.state]
            if args[0] != "--watch":
                full += ["--watch", h.pattern]
            r = subprocess.run(full + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            self.assertIn(r.returncode, (64,), (args, r.stderr))
            self.assertIn(b"agt-collector: error:", r.stderr)
        r = subprocess.run([COLLECTOR, "run", "--out", h.out], stderr=subprocess.PIPE)
        self.assertEqual(r.returncode, 64)


if __name__ == "__main__":
    unittest.main()
