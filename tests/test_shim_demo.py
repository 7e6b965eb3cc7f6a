"""scripts/demo runs end to end: denials through the shim into a temporary
sandbox tree, `agt-collector run` tailing it, the audit trail shown and
verified. --no-docker keeps it fast; the image paths are covered by
tests/test_image_docker.py. It runs on a copy of the built shim and
collector (--no-build), as a demonstration of another commit's build would."""
import collections
import json
import os
import re
import subprocess
import unittest

from build_paths import copied_build
from shim_support import TOP

SECRETS = ("ghp_0123456789", "c2lnbmF0dXJl")


class Demo(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.build = copied_build(cls, "shim/agt-deny-shim", "collector/agt-collector")
        env = dict(os.environ, AGT_BUILD_DIR=cls.build)
        cls.p = subprocess.run([os.path.join(TOP, "scripts", "demo"), "--no-docker", "--no-build"],
                               capture_output=True, text=True, env=env, timeout=600)
        cls.out = cls.p.stdout

    def setUp(self):
        self.assertEqual(self.p.returncode, 0, self.p.stderr[-2000:] + self.out[-2000:])

    def test_demo_ran_the_build_it_was_given_without_building(self):
        self.assertFalse(os.path.exists(os.path.join(self.build, "build.ninja")),
                         "scripts/build ran on the copied build")
        self.assertIn(os.path.join(self.build, "shim", "agt-deny-shim"), self.out)

    def test_demo_shows_denials_records_and_log(self):
        out = self.out
        self.assertEqual(out.count("exit status: 126"), 6, out)
        self.assertIn('"binary":"ssh"', out)
        self.assertIn('"argv0":"agt-deny-shim"', out)
        self.assertIn("https://alice:[REDACTED]@github.com/org/repo.git", out)
        self.assertIn("--token=[REDACTED]", out)
        # the secret shows only where the demo echoes its own command line
        for line in out.splitlines():
            if any(s in line for s in SECRETS):
                self.assertRegex(line, r"^\[sb-2\] \$ ")
        # hostile bytes never reach the terminal raw: quoted in the echo, escaped in records
        self.assertNotIn("\x1b", out)
        self.assertIn("[sb-2] $ curl $'--data=\\377\\376' $'\\E[2J\\E[31mred'", out)
        self.assertIn("could not write AGT_DENIED_LOG", out)
        self.assertIn("curl: denied by default (category: network)", out)

    def test_collector_tails_the_sandboxes_into_a_verified_audit_trail(self):
        out = self.out
        self.assertIn("SKIPPED: the denial inside the sandbox image (--no-docker given)", out)
        self.assertIn("collector exit status: 0", out)
        self.assertIn("agt-collector: run: stopping: 7 entries written, 0 already present", out)
        # 7 from the logs: six denials and the planted symlink's suppression entry.
        self.assertIn("socket: 1 attested entries, 1 forged messages in 1 entries", out)
        self.assertIn("1 log suppression(s) recorded (0 restored)", out)
        self.assertRegex(out, r"sb-evil/denied\.log: refused: a symbolic link")
        entries = [json.loads(line) for line in out.splitlines() if line.startswith('{"entry_id":')]
        # The planted symlink is itself a signed entry (denied_log_suppressed).
        [suppressed] = [e for e in entries if e["sandbox_id"] == "sb-evil"]
        entries.remove(suppressed)
        self.assertTrue(suppressed["resource"].endswith("/sandboxes/sb-evil/denied.log"))
        self.assertIsNone(suppressed["argv"])
        attested_sb = entries[-1]["sandbox_id"]
        self.assertRegex(attested_sb, r"^sb-attested-\d+$")
        self.assertEqual([(e["sandbox_id"], e["event_type"], e["attested"], e["resource"]) for e in entries[:7]],
                         [("sb-1", "command_denied", False, "curl"), ("sb-1", "command_denied", False, "wget"),
                          ("sb-1", "command_denied", False, "ssh"), ("sb-2", "command_denied", False, "git"),
                          ("sb-2", "command_denied", False, "kubectl"), ("sb-2", "command_denied", False, "curl"),
                          (attested_sb, "command_denied", True, "curl")])
        # python's perfect record over the socket: a forgery, not a denial
        self.assertEqual((entries[7]["event_type"], entries[7]["attested"]), ("denial_record_forged", False))
        self.assertEqual(len(entries), 8)
        self.assertEqual(entries[6]["argv"], ["-sSL", "https://example.com/exfiltrate"])
        self.assertIn("curl exit status 126 (stderr thrown away)", out)
        self.assertIn("its log directory holds [] (the record went to the socket)", out)
        self.assertIn("the collector answered NAK", out)
        self.assertEqual(len({e["entry_id"] for e in entries}), 8)
        self.assertEqual(entries[3]["argv"], ["clone", "https://alice:[REDACTED]@github.com/org/repo.git"])
        # the forged record inside an argument stays one string of one entry
        self.assertEqual(entries[5]["argv"][2], 'x\n{"event":"command_denied","binary":"forged"}')
        self.assertEqual(collections.Counter(e["sandbox_id"] for e in entries),
                         {"sb-1": 3, "sb-2": 3, attested_sb: 2})
        verified = re.findall(r"^(/tmp/agt-demo\.\w+)/audit\.jsonl: (\d+) entries, chain and signatures valid$",
                              out, re.M)
        self.assertEqual(len(verified), 1, out[-3000:])
        self.assertEqual(verified[0][1], "9")
        self.assertIn("verify exit status: 0", out)
        # the temporary tree is gone, and no collector is left running
        self.assertFalse(os.path.exists(verified[0][0]), verified[0][0])
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open("/proc/%s/cmdline" % pid, "rb") as f:
                    cmdline = f.read()
            except OSError:
                continue
            self.assertNotIn(verified[0][0].encode(), cmdline)


if __name__ == "__main__":
    unittest.main()
