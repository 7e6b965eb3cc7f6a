"""man/agt-deny-shim.1: lint-clean, and documents every record key, the
environment variable, every exit status, every subcommand and the redaction
rule table."""
import os
import re
import subprocess
import unittest

from shim_support import BUILD, SHIM, TOP, ShimTestCase, run

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


class RedactionTable(unittest.TestCase):
    """The REDACTION TABLE section is the rule table's own rows, rendered by
    shim/redact_table_gen from shim/redact_rules.h: the page cannot drift."""

    def test_the_page_holds_the_generated_table(self):
        gen = os.path.join(BUILD, "shim", "redact_table_gen")
        self.assertTrue(os.path.exists(gen), "not built: %s" % gen)
        table = subprocess.run([gen], capture_output=True, text=True, check=True).stdout
        with open(MAN) as f:
            text = f.read()
        begin = text.find(table.splitlines()[0])
        end_marker = '.\\" END REDACTION TABLE\n'
        end = text.find(end_marker)
        self.assertGreaterEqual(begin, 0, "no BEGIN REDACTION TABLE marker")
        self.assertGreater(end, begin)
        self.assertEqual(text[begin:end + len(end_marker)], table,
                         "man/agt-deny-shim.1 differs from the table: run "
                         "build/shim/redact_table_gen --write man/agt-deny-shim.1")

    def test_every_tool_option_and_prefix_is_listed(self):
        # A cross-check that does not trust the generator: every option and
        # token prefix of redact_rules.h appears in the rendered page.
        with open(os.path.join(TOP, "shim", "redact_rules.h")) as f:
            rules = f.read()
        page = subprocess.run(["man", "-l", MAN], capture_output=True, text=True,
                              env={"MANWIDTH": "200", "PATH": "/usr/bin:/bin"}).stdout
        page = page.replace("\u2010", "-")
        options = re.findall(r'^\s+\{"[^"]+", "([^"]+)", Value::', rules, re.M)
        prefixes = re.findall(r'^\s+\{"([^"]+)", Body::', rules, re.M)
        self.assertGreater(len(options), 40)
        self.assertGreater(len(prefixes), 50)
        for item in options + prefixes:
            self.assertIn(item, page)
