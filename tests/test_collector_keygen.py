"""agt-collector keygen: a fresh key the other commands accept, never
printed, never overwriting."""
import os
import stat
import subprocess
import tempfile
import unittest

from build_paths import COLLECTOR
from collector_support import record


class Keygen(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.key = os.path.join(self.dir, "audit.key")

    def tearDown(self):
        self.tmp.cleanup()

    def keygen(self, *args):
        # Binary output: the raw key bytes must not appear in it.
        return subprocess.run([COLLECTOR, "keygen"] + list(args), capture_output=True, timeout=60)

    def test_writes_a_secret_key_the_chain_uses(self):
        p = self.keygen("--out", self.key)
        self.assertEqual(p.returncode, 0, p.stderr)
        st = os.stat(self.key)
        self.assertEqual((stat.S_IMODE(st.st_mode), st.st_size), (0o600, 32))
        with open(self.key, "rb") as f:
            key = f.read()
        self.assertEqual(p.stdout, b"")
        for shown in (key, key.hex().encode(), key.hex().upper().encode()):
            self.assertNotIn(shown, p.stderr)
        self.assertIn(self.key.encode(), p.stderr)

        # The key signs and verifies a chain.
        log = os.path.join(self.dir, "denied.log")
        out = os.path.join(self.dir, "audit.jsonl")
        with open(log, "w") as f:
            f.write(record() + "\n")
        imp = subprocess.run([COLLECTOR, "import", "--key-file", self.key, "--out", out,
                              "--sandbox-id", "sb-1", log], capture_output=True, text=True)
        self.assertEqual(imp.returncode, 0, imp.stderr)
        self.assertNotIn("warning", imp.stderr)  # no lint about mode or length
        ver = subprocess.run([COLLECTOR, "verify", "--key-file", self.key, out],
                             capture_output=True, text=True)
        self.assertEqual(ver.returncode, 0, ver.stderr)

    def test_refuses_to_overwrite(self):
        with open(self.key, "wb") as f:
            f.write(b"the key that signed last year's files")
        p = self.keygen("--out", self.key)
        self.assertEqual(p.returncode, 73)
        self.assertIn(b"refusing to overwrite", p.stderr)
        with open(self.key, "rb") as f:
            self.assertEqual(f.read(), b"the key that signed last year's files")

    def test_usage_errors(self):
        for args in ([], ["extra"], ["--out", self.key, "extra"]):
            p = self.keygen(*args)
            self.assertEqual(p.returncode, 64, args)
            self.assertIn(b"usage: agt-collector keygen --out FILE", p.stderr)
        self.assertFalse(os.path.exists(self.key))
        p = self.keygen("--out", os.path.join(self.dir, "no", "such", "dir", "k"))
        self.assertEqual(p.returncode, 73)
        self.assertIn(b"No such file or directory", p.stderr)


if __name__ == "__main__":
    unittest.main()
