"""scripts/demo runs end to end and shows denials, redaction and the log."""
import os
import subprocess
import unittest

from shim_support import BUILD, TOP


class Demo(unittest.TestCase):

    def test_demo_shows_denials_records_and_log(self):
        env = dict(os.environ, AGT_BUILD_DIR=BUILD)
        p = subprocess.run([os.path.join(TOP, "scripts", "demo")], capture_output=True, text=True,
                           env=env, timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])
        out = p.stdout
        self.assertEqual(out.count("exit status: 126"), 5, out)
        self.assertIn('"binary":"ssh"', out)
        self.assertIn('"argv0":"agt-deny-shim"', out)
        self.assertIn("https://[REDACTED]@github.com/org/repo.git", out)
        self.assertIn("--token=[REDACTED]", out)
        # the secret shows only where the demo echoes its own command line
        for line in out.splitlines():
            if "ghp_0123456789" in line or "c2lnbmF0dXJl" in line:
                self.assertTrue(line.startswith("$ "), line)
        self.assertIn("could not write AGT_DENIED_LOG", out)
        self.assertIn("curl: denied by default (category: network)", out)
