"""The hostile-input catalogue (tests/data/hostile/INDEX), checked line by line.

Every file in the catalogue is listed in INDEX with what must happen to it,
and every listed input exists: a file here, or the test that makes it at run
time. Records are imported together (each rejected with its reason, or
accepted), configs refused by check-config, edited audit chains refused by
verify at the named line, and whole logs read by the run mode.
"""
import importlib
import os
import re
import time
import unittest

from collector_support import VECTORS, Workdir, record, run_collector
from run_harness import RunHarness

HOSTILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "hostile")


def read_index():
    rows = []
    with open(os.path.join(HOSTILE, "INDEX"), encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if line.startswith("#") or not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 3 or not all(fields):
                raise AssertionError("INDEX:%d: expected WHAT<TAB>EXPECTED<TAB>WHY" % number)
            rows.append(tuple(fields))
    return rows


def rows_of(kind):
    return [(what, expected) for what, expected, _ in read_index() if what.startswith(kind + "/")]


class HostileCatalogueTest(unittest.TestCase):
    def setUp(self):
        self.w = Workdir()
        self.addCleanup(self.w.cleanup)

    def test_every_file_is_listed_and_every_entry_exists(self):
        listed = [what for what, _, _ in read_index()]
        self.assertEqual(len(listed), len(set(listed)), "an input listed twice")
        on_disk = set()
        for folder, _, names in os.walk(HOSTILE):
            for name in names:
                on_disk.add(os.path.relpath(os.path.join(folder, name), HOSTILE))
        on_disk.discard("INDEX")
        files = {what for what in listed if not what.startswith("tests/")}
        self.assertEqual(sorted(on_disk - files), [], "files not in INDEX")
        self.assertEqual(sorted(files - on_disk), [], "INDEX names missing files")
        for what in listed:
            if what.startswith("tests/"):
                path, name = what[len("tests/"):].split(":")
                module = importlib.import_module(path[:-len(".py")])
                found = hasattr(module, name) or any(
                    hasattr(obj, name) for obj in vars(module).values() if isinstance(obj, type))
                self.assertTrue(found, what)

    def test_records(self):
        rows = rows_of("records")
        self.assertGreater(len(rows), 40)
        lines = []
        for what, _ in rows:
            with open(os.path.join(HOSTILE, what), "rb") as f:
                data = f.read()
            self.assertNotIn(b"\n", data, what)
            lines.append(data)
        good = record().encode()
        log = self.w.write("denied.log", b"".join(l + b"\n" for l in lines) + good + b"\n")
        out = self.w.join("audit.jsonl")
        r = run_collector("import", "--key-file", self.w.key_file, "--out", out,
                          "--sandbox-id", "sb-1", log)
        self.assertEqual(r.returncode, 65, r.stderr[-2000:])
        reasons = {}
        for line in r.stderr.splitlines():
            m = re.match(re.escape(log) + r":(\d+): (.*)$", line)
            if m:
                reasons[int(m.group(1))] = m.group(2)
        accepted = 1  # the good record at the end
        for number, (what, expected) in enumerate(rows, 1):
            with self.subTest(record=what):
                if expected == "accepted":
                    self.assertNotIn(number, reasons)
                    accepted += 1
                else:
                    self.assertIn(expected[len("rejected: "):], reasons.get(number, "(not rejected)"))
        r = run_collector("verify", "--key-file", self.w.key_file, out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(" %d entries" % accepted, r.stdout + r.stderr)

    def test_configs(self):
        rows = rows_of("configs")
        self.assertGreater(len(rows), 10)
        for what, expected in rows:
            with self.subTest(config=what):
                r = run_collector("check-config", os.path.join(HOSTILE, what))
                self.assertEqual(r.returncode, 78, r.stdout + r.stderr)
                self.assertIn(expected[len("refused: "):], r.stderr)
                self.assertNotIn("\x1b", r.stderr)  # nothing from the file echoed raw

    def test_audit_chains(self):
        rows = rows_of("audit")
        self.assertGreater(len(rows), 8)
        key = os.path.join(VECTORS, "key.bin")
        for what, expected in rows:
            with self.subTest(audit=what):
                path = os.path.join(HOSTILE, what)
                r = run_collector("verify", "--key-file", key, path)
                self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
                self.assertIn(path + expected[len("broken: "):], r.stderr)

    def test_logs_read_by_the_run_mode(self):
        rows = rows_of("logs")
        self.assertGreater(len(rows), 4)
        for what, expected in rows:
            with self.subTest(log=what):
                written, rejected = map(int, re.match(r"written (\d+), rejected (\d+)$",
                                                      expected).groups())
                h = RunHarness(self, scan_interval_ms=100, name="hostile", sandboxes=["sb-0"])
                with open(os.path.join(HOSTILE, what), "rb") as f:
                    h.append_raw("sb-0", f.read())
                h.start()
                h.wait_for_count(written)
                time.sleep(0.5)  # a line too many would show by now
                h.stop()
                self.assertEqual(len(h.lines()), written)
                self.assertIn("%d lines rejected" % rejected, h.stderr())
                h.assert_chain()


if __name__ == "__main__":
    unittest.main()
