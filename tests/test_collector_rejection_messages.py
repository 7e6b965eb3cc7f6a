"""Rejected lines name where they are, and the two shapes cannot be taken
for each other: import/validate say LOG:LINE (a line number, as a compiler
does), run says "LOG: offset N" (the byte its line starts at)."""
import re
import unittest

from collector_support import Workdir, record, run_collector
from run_harness import RunHarness


class RejectionMessagesTest(unittest.TestCase):
    def log_bytes(self):
        good = record().encode() + b"\n"
        return [good, b"not json\n", good, b'{"nope":1}\n', good]

    def test_import_and_validate_name_the_line_number(self):
        w = Workdir()
        self.addCleanup(w.cleanup)
        log = w.write("denied.log", b"".join(self.log_bytes()))
        for args in (["validate"],
                     ["import", "--key-file", w.key_file, "--out", w.join("audit.jsonl"),
                      "--sandbox-id", "sb-1"]):
            r = run_collector(*args, log)
            self.assertEqual(r.returncode, 65, r.stderr)
            said = [l for l in r.stderr.splitlines() if l.startswith(log)]
            self.assertEqual(said, [log + ":2: not a JSON object",
                                    log + ":4: unknown key \"nope\""], r.stderr)

    def test_run_names_the_byte_offset_and_never_a_line_number(self):
        h = RunHarness(self, sandboxes=["sb-1"], name="messages")
        lines = self.log_bytes()
        h.append_raw("sb-1", b"".join(lines))
        h.start()
        h.wait_for_count(3)
        h.stop()
        log = h.log_path("sb-1")
        said = re.findall(r"^agt-collector: warning: run: (.*): offset (\d+): rejected: (.*)$",
                          h.stderr(), re.M)
        want = [(log, str(len(lines[0])), "not a JSON object"),
                (log, str(sum(map(len, lines[:3]))), "unknown key \"nope\"")]
        self.assertEqual(said, want, h.stderr())
        with open(log, "rb") as f:
            data = f.read()
        for _, offset, _ in said:  # the offset is where the rejected line starts
            self.assertIn(data[int(offset):].split(b"\n")[0], (lines[1][:-1], lines[3][:-1]))
        self.assertNotRegex(h.stderr(), re.escape(log) + r":\d+:")


if __name__ == "__main__":
    unittest.main()
