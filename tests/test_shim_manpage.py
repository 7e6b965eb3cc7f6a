"""man/agt-deny-shim.1: lint-clean, and documents every record key, the
environment variable, every exit status and every subcommand."""
import os
import re
import subprocess

from shim_support import SHIM, TOP, ShimTestCase, run

MAN = os.path.join(TOP, "man", "agt-deny-shim.1")


class ManPage(ShimTestCase):

    def setUp(self):
        super().setUp()
        with open(MAN) as f:
            self.text = f.read()

    def test_mandoc_lint_is_clean(self):
        p = subprocess.run(["mandoc", "-T", "lint", MAN], capture_output=True, text=True)
        self.assertEqual((p.returncode, p.stdout, p.stderr), (0, "", ""))

    def documented_keys(self):
        keys = set()
        for m in re.finditer(r"^\.It Cm (.+)$", self.text, re.M):
            keys.update(k.strip() for k in m.group(1).split(","))
        return keys

    def test_every_record_key_is_documented(self):
        d = run(["curl", "x"], executable=self.sandbox.link("curl"))
        rec = self.assertValidDenial(d, "curl")
        self.assertLessEqual(set(rec), self.documented_keys())

    def test_environment_and_exit_statuses(self):
        env = self.text.split(".Sh ENVIRONMENT")[1].split(".Sh ")[0]
        self.assertIn(".It Ev AGT_DENIED_LOG", env)
        exits = self.text.split(".Sh EXIT STATUS")[1].split(".Sh ")[0]
        for status in ("126", "0", "1", "2"):
            self.assertIn(".It %s\n" % status, exits)

    def test_exit_126_replacing_eacces_is_documented(self):
        # Upstream review, blocker 2: callers that gate on PermissionError
        # must learn that a shimmed command exits 126 instead.
        exits = self.text.split(".Sh EXIT STATUS")[1].split(".Sh ")[0]
        status_126 = exits.split(".It 126\n")[1].split(".It ")[0]
        self.assertIn(".Er EACCES", status_126)
        self.assertIn("PermissionError", status_126)

    def test_every_subcommand_is_documented(self):
        p = subprocess.run(["agt-deny-shim", "--help"], executable=SHIM, capture_output=True,
                           text=True, timeout=30)
        commands = re.findall(r"^  (\S+)", p.stdout.split("commands:")[1], re.M)
        self.assertGreaterEqual(len(commands), 8)
        for c in commands:
            self.assertRegex(self.text, r"\.It Cm %s\b" % re.escape(c), c)
