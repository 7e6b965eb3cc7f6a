"""import, validate and verify show progress (records, bytes, rate, ETA) on
stderr when it is a terminal, a real pty here, and nothing extra when it is
not."""
import errno
import os
import pty
import re
import subprocess
import unittest

from build_paths import COLLECTOR
from collector_support import Workdir, record

RECORDS = 8000  # ~1.5 MB: above the meter's 1 MiB threshold
STATUS = r"\r\x1b\[K(%s: (\d+) records, (\S+ \S+) of (\S+ \S+) \((\d+)%%\), (?:ETA --|\S+ \S+/s, ETA \S+(?: s)?))"


def run_on_pty(args):
    """Runs the collector with stderr on a pty; returns (rc, stdout, stderr as the terminal got it)."""
    master, slave = pty.openpty()
    try:
        p = subprocess.Popen([COLLECTOR] + args, stdout=subprocess.PIPE, stderr=slave)
    finally:
        os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError as e:  # EIO: the last writer closed the pty
            if e.errno != errno.EIO:
                raise
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    out = p.stdout.read().decode()
    p.stdout.close()
    rc = p.wait(timeout=120)
    return rc, out, b"".join(chunks).decode().replace("\r\n", "\n")


class ProgressTest(unittest.TestCase):
    def setUp(self):
        self.w = Workdir()
        self.addCleanup(self.w.cleanup)
        lines = [record(argv=["-x", "m%05d" % i]) for i in range(RECORDS)]
        self.log = self.w.write("denied.log", "".join(l + "\n" for l in lines).encode())
        self.size = os.path.getsize(self.log)
        self.assertGreater(self.size, 1 << 20)
        self.out = self.w.join("audit.jsonl")

    def import_args(self, *logs):
        return ["import", "--key-file", self.w.key_file, "--out", self.out, "--sandbox-id", "sb-1"] + list(logs or [self.log])

    def assert_progress(self, said, what, records):
        shown = re.findall(STATUS % re.escape(what), said)
        self.assertTrue(shown, said[:2000])
        # The last one is the final state: every record, every byte.
        final = shown[-1]
        self.assertEqual(int(final[1]), records, final[0])
        self.assertEqual((final[2], final[4]), (final[3], "100"), final[0])
        self.assertRegex(final[0], r"/s, ETA 0 s$")
        # Then the line is cleared, and nothing else is left on it.
        after = said[said.rindex(final[0]) + len(final[0]):]
        self.assertTrue(after.startswith("\r\x1b[K"), repr(after[:80]))
        return after[len("\r\x1b[K"):]

    def test_import_and_verify_on_a_terminal(self):
        rc, out, said = run_on_pty(self.import_args())
        self.assertEqual(rc, 0, said)
        rest = self.assert_progress(said, "import", RECORDS)
        self.assertEqual(rest, "agt-collector: import: %d lines, %d entries written, 0 rejected\n"
                         % (RECORDS, RECORDS))
        rc, out, said = run_on_pty(["verify", "--key-file", self.w.key_file, self.out])
        self.assertEqual(rc, 0, said)
        self.assertEqual(self.assert_progress(said, "verify " + self.out, RECORDS), "")
        self.assertEqual(out, "%s: %d entries, chain and signatures valid\n" % (self.out, RECORDS))

    def test_a_rejected_line_starts_on_a_line_of_its_own(self):
        bad = self.w.write("bad.log", b"not json\n")
        rc, _, said = run_on_pty(["validate", self.log, bad])
        self.assertEqual(rc, 65, said)
        self.assert_progress(said, "validate", RECORDS + 1)
        at = said.index(bad + ":1: not a JSON object\n")
        self.assertEqual(said[at - 4:at], "\r\x1b[K", repr(said[at - 80:at]))

    def test_nothing_extra_when_stderr_is_not_a_terminal(self):
        r = subprocess.run([COLLECTOR] + self.import_args(), capture_output=True, text=True,
                           timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "agt-collector: import: %d lines, %d entries written, 0 rejected\n"
                         % (RECORDS, RECORDS))
        r = subprocess.run([COLLECTOR, "verify", "--key-file", self.w.key_file, self.out],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual((r.returncode, r.stderr), (0, ""))

    def test_nothing_for_a_small_input_even_on_a_terminal(self):
        small = self.w.write("small.log", (record() + "\n").encode())
        rc, _, said = run_on_pty(self.import_args(small))
        self.assertEqual(rc, 0, said)
        self.assertEqual(said, "agt-collector: import: 1 lines, 1 entries written, 0 rejected\n")


if __name__ == "__main__":
    unittest.main()
