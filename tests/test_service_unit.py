"""debian/agt-collector.service: systemd's own checks of the unit the
package installs (verify clean, security exposure 2.0 or lower)."""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from build_paths import COLLECTOR, TOP

UNIT = os.path.join(TOP, "debian", "agt-collector.service")
DROPINS = os.path.join(TOP, "debian", "dropins")


def directives(text):
    out = {}
    for line in text.splitlines():
        m = re.match(r"^([A-Za-z]+)=(.*)$", line)
        if m:
            out.setdefault(m.group(1), []).append(m.group(2))
    return out


class ServiceUnit(unittest.TestCase):
    def setUp(self):
        with open(UNIT) as f:
            self.text = f.read()
        self.d = directives(self.text)

    def test_security_exposure_is_ok_or_better(self):
        p = subprocess.run(["systemd-analyze", "security", "--offline=yes", "--no-pager", UNIT],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        m = re.search(r"Overall exposure level for agt-collector\.service: ([0-9.]+) (\w+)",
                      p.stdout + p.stderr)
        self.assertIsNotNone(m, p.stdout + p.stderr)
        print("\nsystemd-analyze security --offline=yes: %s %s" % (m.group(1), m.group(2)))
        self.assertLessEqual(float(m.group(1)), 2.0)

    def test_verify_is_clean(self):
        # The unit as shipped, but ExecStart names the binary built here (the
        # packaged path is not installed on this host) and no man lookup.
        packaged = "/usr/bin/agt-collector"
        self.assertEqual(self.text.count("ExecStart=" + packaged + " "), 1)
        with tempfile.TemporaryDirectory() as tmp:
            unit = os.path.join(tmp, "agt-collector.service")
            with open(unit, "w") as f:
                f.write(self.text.replace("ExecStart=" + packaged, "ExecStart=" + COLLECTOR))
            p = subprocess.run(["systemd-analyze", "verify", "--man=no", unit],
                               capture_output=True, text=True, timeout=120)
        self.assertEqual((p.returncode, p.stdout, p.stderr), (0, "", ""))

    def analyze(self, dropins):
        """(verify's output, the security score) of the unit with `dropins`
        (names under debian/dropins/) in its agt-collector.service.d/."""
        packaged = "/usr/bin/agt-collector"
        with tempfile.TemporaryDirectory() as tmp:
            unit = os.path.join(tmp, "agt-collector.service")
            with open(unit, "w") as f:
                f.write(self.text.replace("ExecStart=" + packaged, "ExecStart=" + COLLECTOR))
            os.mkdir(unit + ".d")
            for name in dropins:
                shutil.copy(os.path.join(DROPINS, name), unit + ".d")
            v = subprocess.run(["systemd-analyze", "verify", "--man=no", unit],
                               capture_output=True, text=True, timeout=120)
            p = subprocess.run(["systemd-analyze", "security", "--offline=yes", "--no-pager", unit],
                               capture_output=True, text=True, timeout=120)
        m = re.search(r"Overall exposure level for agt-collector\.service: ([0-9.]+) (\w+)",
                      p.stdout + p.stderr)
        self.assertIsNotNone(m, p.stdout + p.stderr)
        return (v.returncode, v.stdout, v.stderr), float(m.group(1)), m.group(2)

    def test_each_dropin_verifies_and_its_score_is_printed(self):
        names = sorted(n for n in os.listdir(DROPINS) if n.endswith(".conf"))
        self.assertEqual(names, ["append-only.conf", "forward.conf", "listen.conf"])
        _, base, _ = self.analyze([])
        self.assertLessEqual(base, 2.0)
        print()
        for dropins in [[n] for n in names] + [names]:
            verify, score, word = self.analyze(dropins)
            self.assertEqual(verify, (0, "", ""), dropins)
            # Read, or the score would not move: each grants something.
            self.assertGreater(score, base, dropins)
            print("systemd-analyze security --offline=yes with %s: %.1f %s"
                  % (" + ".join(dropins), score, word))
        # Each is installed where its README (and agt-collector(1)) says.
        with open(os.path.join(TOP, "debian", "agt-collector.install")) as f:
            install = f.read()
        for name in names + ["README"]:
            self.assertIn("debian/dropins/" + name + " ", install)
        self.assertIn(" usr/share/agt-collector/dropins/\n", install)
        with open(os.path.join(DROPINS, "README")) as f:
            readme = f.read()
        for name in names:
            self.assertIn(name, readme)

    def test_one_capability_a_dedicated_user_and_readiness(self):
        d = self.d
        self.assertEqual(d["User"], ["_agt-collector"])
        self.assertEqual(d["AmbientCapabilities"], ["CAP_DAC_READ_SEARCH"])
        self.assertEqual(d["CapabilityBoundingSet"], ["CAP_DAC_READ_SEARCH"])
        self.assertEqual(d["Type"], ["notify"])
        self.assertIn("WatchdogSec", d)
        for key, value in (("ProtectSystem", "strict"), ("NoNewPrivileges", "yes"),
                           ("PrivateTmp", "yes"), ("MemoryDenyWriteExecute", "yes"),
                           ("RestrictAddressFamilies", "AF_UNIX"),
                           ("SystemCallFilter", "@system-service")):
            self.assertIn(value, d.get(key, []), key)
        with open(os.path.join(TOP, "debian", "agt-collector.sysusers")) as f:
            self.assertRegex(f.read(), r"(?m)^u _agt-collector ")

    def test_a_persistent_fault_is_retried_at_a_pace_never_given_up(self):
        # A full disk stops every start (man page, DISK FAULTS): the unit must
        # pace the restarts and never reach a start limit.
        d = self.d
        self.assertEqual(d["Restart"], ["on-failure"])
        self.assertEqual(d["RestartSec"], ["30s"])
        self.assertEqual(d["StartLimitIntervalSec"], ["0"])
        with open(os.path.join(TOP, "man", "agt-collector.1")) as f:
            man = f.read()
        self.assertIn("RestartSec=30s", man)
        self.assertIn("StartLimitIntervalSec=0", man)


if __name__ == "__main__":
    unittest.main()
