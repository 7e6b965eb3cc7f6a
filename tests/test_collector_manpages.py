"""man/agt-collector.1 and man/agt-audit-jsonl.5: lint-clean, and in step
with the binary (commands, configuration keys, exit statuses, record keys)."""
import json
import os
import re
import subprocess
import unittest

from collector_support import TOP, record, run_collector

MAN1 = os.path.join(TOP, "man", "agt-collector.1")
MAN5 = os.path.join(TOP, "man", "agt-audit-jsonl.5")


def section(text, name):
    return text.split(".Sh %s\n" % name)[1].split("\n.Sh ")[0]


class ManPages(unittest.TestCase):
    def setUp(self):
        with open(MAN1) as f:
            self.man1 = f.read()
        with open(MAN5) as f:
            self.man5 = f.read()

    def test_mandoc_lint_is_clean(self):
        # Run inside man/ so cross references between the pages resolve.
        for page in (MAN1, MAN5):
            p = subprocess.run(["mandoc", "-T", "lint", os.path.basename(page)],
                               cwd=os.path.dirname(page), capture_output=True, text=True)
            self.assertEqual((p.returncode, p.stdout, p.stderr), (0, "", ""), page)

    def test_every_command_is_documented(self):
        usage = run_collector("--help").stdout
        commands = re.findall(r"^  (\S+) {2,}", usage.split("commands:")[1].split("\n\n")[0], re.M)
        self.assertGreaterEqual(len(commands), 4)
        documented = section(self.man1, "COMMANDS")
        for command in commands:
            self.assertIn(".It Cm %s" % command, documented)

    def test_every_config_key_is_documented(self):
        keys = [line.split()[0] for line in run_collector("check-config", "--keys").stdout.splitlines()]
        self.assertIn("sources[].environment", keys)
        documented = section(self.man1, "CONFIGURATION")
        for key in keys:
            self.assertRegex(documented, r"\.It Sy (.*[ ,])?%s[ ,]" % re.escape(key))

    def test_every_exit_status_is_documented(self):
        usage = run_collector("--help").stdout
        statuses = re.findall(r"(\d+) [a-z]", usage.split("exit status:")[1])
        self.assertIn("65", statuses)
        documented = section(self.man1, "EXIT STATUS")
        for status in statuses:
            self.assertIn(".It %s\n" % status, documented)

    def test_every_record_key_and_entry_field_is_documented(self):
        documented = section(self.man5, "RECORD KEYS")
        for key in json.loads(record()):
            self.assertIn(".It Sy %s\n" % key, documented)
        fields = section(self.man5, "DESCRIPTION")
        for field in ("entry_id", "timestamp", "event_type", "agent_did", "action", "resource",
                      "target_did", "data", "outcome", "policy_decision", "matched_rule",
                      "trace_id", "session_id", "sandbox_id", "environment", "compute_driver",
                      "content_hash", "previous_hash", "signature"):
            self.assertRegex(fields, r"\.It Sy (.*[ ,])?%s( ,|\n)" % field)

    def test_entry_id_derivation_is_the_documented_one(self):
        ids = section(self.man5, "ENTRY IDS")
        self.assertIn('{"action": "exec", "agent_did": AGENT_DID, "data": DATA', ids)


if __name__ == "__main__":
    unittest.main()
