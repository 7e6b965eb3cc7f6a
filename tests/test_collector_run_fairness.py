"""agt-collector run against one hostile sandbox: a terabyte hole, a flood
past the per-sandbox quota, and counts that must match the file exactly."""
import json
import os
import re
import signal
import subprocess
import unittest

from build_paths import COLLECTOR
from run_harness import RunHarness
from tmpfs_support import mount_tmpfs

TIB = 1 << 40


def write_config(h, quota):
    path = os.path.join(h.dir, "collector.json")
    with open(path, "w") as f:
        json.dump({"output": h.out, "key_file": h.key, "state_dir": h.state,
                   "watch": [h.pattern], "sandbox_quota": quota}, f)
    return path


class RunHoleTest(unittest.TestCase):
    def one_byte_a_hole_a_newline(self, on_tmpfs):
        h = RunHarness(self)
        if on_tmpfs:
            mount_tmpfs(self, h.base, "size=64m")
        for sid in ("sb-hole", "sb-a", "sb-b"):
            h.add_sandbox(sid)
        h.deny("sb-a")
        h.start()
        h.wait_expected()
        # The sandbox's cheapest stall: one byte, seek 1 TiB, a newline, a record.
        marker, line = h.shim_line("sb-hole")
        with open(h.log_path("sb-hole"), "wb") as f:
            f.write(b"x")
            f.seek(TIB)
            f.write(b"\n" + line)
        h.expected.append(("sb-hole", marker))
        # The others are collected: the hole costs a turn, not the daemon.
        for _ in range(3):
            h.deny("sb-a")
            h.deny("sb-b")
        h.wait_expected()
        h.stop()  # SIGTERM: exits 0 (a stalled collector would not)
        h.assert_exact()
        err = h.stderr()
        # Reported once, with its whole length (the 'x' and the hole).
        self.assertEqual(err.count("rejected: line longer than the limit (%d bytes" % TIB), 1, err)

    def test_terabyte_hole_inside_a_line_on_ext4_or_the_test_tree(self):
        self.one_byte_a_hole_a_newline(on_tmpfs=False)

    def test_terabyte_hole_inside_a_line_on_tmpfs(self):
        self.one_byte_a_hole_a_newline(on_tmpfs=True)

    def test_sigterm_while_a_sandbox_feeds_written_nuls(self):
        # NULs that are written (no hole to jump) are read in bounded turns:
        # SIGTERM is seen between them; the run is reported once when it ends.
        h = RunHarness(self, sandboxes=["sb-nul", "sb-a"])
        with open(h.log_path("sb-nul"), "wb") as f:
            for _ in range(64):
                f.write(b"\0" * (1 << 20))
            f.write(b"\n")
        h.deny("sb-a")
        h.start()
        h.wait_expected()
        h.stop()
        h.assert_exact()


class RunQuotaTest(unittest.TestCase):
    def flood(self, h, sid, count):
        lines = []
        for _ in range(count):
            _, line = h.shim_line(sid)
            lines.append(line)
        h.append_raw(sid, b"".join(lines))
        return lines

    def summaries(self, h):
        return [e for e in h.entries() if e["event_type"] == "sandbox_quota_exceeded"]

    def wait_accounted(self, h, total):
        """Until each of the flood's `total` lines is an entry or in a summary's count."""
        def accounted():
            entries = h.entries()
            return (sum(e["data"]["lines"] for e in entries
                        if e["event_type"] == "sandbox_quota_exceeded") +
                    len([e for e in entries if e["sandbox_id"] == "sb-flood" and
                         e["event_type"] == "command_denied"])) >= total
        h.wait_until(accounted, "every flood line is an entry or counted in a summary",
                     timeout=30)

    def check_totals(self, h, flood_lines, others):
        entries = h.entries()
        denied = [e for e in entries if e["event_type"] == "command_denied"]
        summaries = self.summaries(h)
        flood_entries = [e for e in denied if e["sandbox_id"] == "sb-flood"]
        held = sum(s["data"]["lines"] for s in summaries)
        # Every line of the flood once: as an entry or in a summary's count.
        self.assertEqual(len(flood_entries) + held, len(flood_lines), h.stderr()[-3000:])
        self.assertGreater(held, 0)
        ids = [e["entry_id"] for e in entries]
        self.assertEqual(len(ids), len(set(ids)))
        for s in summaries:
            self.assertEqual(s["sandbox_id"], "sb-flood")
            self.assertEqual(s["data"]["limits"]["max_entries"], 5)
            self.assertGreater(s["data"]["lines"], 0)
        got_others = sorted(e["data"]["argv"][-1] for e in denied if e["sandbox_id"] == "sb-other")
        self.assertEqual(got_others, sorted(others))
        h.assert_chain(entries)

    def test_flood_past_the_quota_is_one_signed_summary(self):
        h = RunHarness(self, sandboxes=["sb-flood", "sb-other"])
        config = write_config(h, {"max_entries": 5, "interval_seconds": 2})
        h.start(config=config)
        lines = self.flood(h, "sb-flood", 60)
        others = [h.deny("sb-other", expect=False) for _ in range(3)]
        self.wait_accounted(h, 60)
        h.stop()
        self.check_totals(h, lines, others)
        self.assertIn("over the sandbox quota", h.stderr())

    def test_held_count_survives_kill9_exactly(self):
        h = RunHarness(self, sandboxes=["sb-flood", "sb-other"])
        # An hour's window: nothing is summarised before the kill.
        config = write_config(h, {"max_entries": 5, "interval_seconds": 3600})
        h.start(config=config)
        lines = self.flood(h, "sb-flood", 40)
        others = [h.deny("sb-other", expect=False) for _ in range(2)]
        h.wait_caught_up()
        # The count is durable with the position, and only there.
        self.assertIn(b" held=35,", h.read_checkpoint("sb-flood"))
        self.assertEqual(self.summaries(h), [])
        h.kill9()
        # Restarted with a short window: the held count's window is over.
        h.start(config=write_config(h, {"max_entries": 5, "interval_seconds": 1}))
        self.wait_accounted(h, 40)
        h.stop()
        summaries = self.summaries(h)
        self.assertEqual([s["data"]["lines"] for s in summaries], [35])
        self.check_totals(h, lines, others)

    def test_check_config_knows_the_quota_keys(self):
        h = RunHarness(self)
        good = write_config(h, {"max_entries": 10, "max_size": "1MiB", "interval_seconds": 30})
        r = subprocess.run([COLLECTOR, "check-config", good], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        bad = write_config(h, {"max_entrys": 10})
        r = subprocess.run([COLLECTOR, "check-config", bad], capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("max_entries", r.stderr)
        bad = write_config(h, {"interval_seconds": 0})
        r = subprocess.run([COLLECTOR, "check-config", bad], capture_output=True, text=True)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("sandbox_quota.interval_seconds", r.stderr)


class RunCountsTest(unittest.TestCase):
    STOP = re.compile(r"stopping: (\d+) entries written, (\d+) already present \(replayed\), "
                      r"(\d+) lines rejected")

    def stopping(self, h):
        found = self.STOP.findall(h.stderr())
        self.assertTrue(found, h.stderr())
        return [tuple(int(x) for x in f) for f in found]

    def test_printed_counts_match_the_file(self):
        h = RunHarness(self, sandboxes=["sb-1", "sb-2"])
        for _ in range(7):
            h.deny("sb-1")
        h.append_raw("sb-2", b"not json\n" * 150)  # past the 100 shown per second
        h.deny("sb-2")
        h.start()
        h.wait_expected()
        h.stop()
        (written, already, rejected), = self.stopping(h)
        self.assertEqual(written, len(h.lines()))
        self.assertEqual(already, 0)
        self.assertEqual(rejected, 150)
        err = h.stderr()
        shown = err.count(": rejected: ")
        not_shown = sum(int(n) for n in re.findall(r"(\d+) more rejected line\(s\) not shown", err))
        self.assertEqual(shown + not_shown, 150, err[-3000:])
        self.assertGreater(not_shown, 0)
        # A restart from an older checkpoint replays: counted as already present, exactly.
        saved = h.read_checkpoint("sb-1")
        h.start()
        for _ in range(2):
            h.deny("sb-1")
        h.wait_expected()
        h.stop()
        h.write_checkpoint("sb-1", saved)
        h.start()
        h.wait_caught_up()
        h.stop()
        runs = self.stopping(h)
        self.assertEqual(runs[1][0], 2)
        self.assertEqual(runs[2], (0, 2, 0))
        self.assertEqual(len(h.lines()), written + 2)
        h.assert_exact()

    def test_entries_written_on_a_full_disk_are_those_in_the_file(self):
        # The output fills up mid-run: the count printed is what the file
        # holds, not what was appended to a batch that never landed.
        from test_collector_faults import FullTmpfs
        h = RunHarness(self, sandboxes=["sb-1"])
        fs = FullTmpfs(self, size_kib=256, leave_bytes=16384)
        h.out = os.path.join(fs.dir, "audit.jsonl")
        _, line = h.shim_line("sb-1")
        h.append_raw("sb-1", line * 2000)
        args = [COLLECTOR, "run", "--key-file", h.key, "--out", h.out, "--state-dir", h.state,
                "--watch", h.pattern, "--syslog-socket", "none"]
        r = subprocess.run(args, capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 74, r.stderr)
        (written, _, _), = [tuple(int(x) for x in f) for f in self.STOP.findall(r.stderr)]
        self.assertEqual(written, len(h.lines()), r.stderr)
        fs.free()

    def test_huge_line_is_reported_with_its_length(self):
        # A 2 GiB line (sparse: its bytes are a hole) is reported as 2 GiB.
        h = RunHarness(self, sandboxes=["sb-1"])
        with open(h.log_path("sb-1"), "wb") as f:
            f.write(b"{")
            f.seek(2 << 30)
            f.write(b"\n")
        h.deny("sb-1")
        h.start()
        h.wait_expected()
        h.stop()
        self.assertIn("line longer than the limit (%d bytes" % (2 << 30), h.stderr())
        h.assert_exact()


if __name__ == "__main__":
    unittest.main()
