"""scripts/sandbox-seccomp-profile on profiles given with --docker-default:
the two changes made and checked, and a profile it does not know refused
with a clear error. The profile made from the engine's real default, under
the real Docker engine, is test_image_attested.py's."""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "scripts",
                      "sandbox-seccomp-profile")

# The shape of Docker's default: one big unconditional allow list, ptrace
# allowed to all from Linux 4.8, and to CAP_SYS_PTRACE with its kin.
DEFAULT_LIKE = {
    "defaultAction": "SCMP_ACT_ERRNO",
    "syscalls": [
        {"names": ["read", "seccomp", "write"], "action": "SCMP_ACT_ALLOW", "args": [],
         "includes": {}, "excludes": {}},
        {"names": ["ptrace"], "action": "SCMP_ACT_ALLOW", "args": None,
         "includes": {"minKernel": "4.8"}, "excludes": {}},
        {"names": ["process_vm_writev", "ptrace"], "action": "SCMP_ACT_ALLOW", "args": [],
         "includes": {"caps": ["CAP_SYS_PTRACE"]}, "excludes": {}},
    ],
}


class SandboxSeccompProfile(unittest.TestCase):
    def run_on(self, profile):
        d = tempfile.mkdtemp(prefix="agt-seccomp-test.")
        self.addCleanup(shutil.rmtree, d, ignore_errors=True)
        src, out = os.path.join(d, "default.json"), os.path.join(d, "out.json")
        with open(src, "w") as f:
            f.write(profile if isinstance(profile, str) else json.dumps(profile))
        p = subprocess.run([SCRIPT, "--docker-default", src, out], capture_output=True, text=True,
                           timeout=60)
        result = None
        if os.path.exists(out):
            with open(out) as f:
                result = json.load(f)
        return p, result

    def test_ptrace_goes_and_seccomp_comes_back_without_the_listener_flag(self):
        p, out = self.run_on(DEFAULT_LIKE)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("ptrace not allowed, no seccomp user-notification listener", p.stdout)
        rules = out["syscalls"]
        self.assertEqual(rules[0]["names"], ["read", "write"])
        self.assertNotIn({"names": ["ptrace"]}, [{"names": r["names"]} for r in rules])
        # The capability's rule is the engine's, left as it was.
        self.assertEqual(rules[1]["names"], ["process_vm_writev", "ptrace"])
        self.assertEqual(rules[-1]["names"], ["seccomp"])
        self.assertEqual(rules[-1]["args"], [{"index": 1, "value": 8, "valueTwo": 0,
                                              "op": "SCMP_CMP_MASKED_EQ"}])

    def test_a_profile_it_does_not_know_is_refused(self):
        no_ptrace = json.loads(json.dumps(DEFAULT_LIKE))
        del no_ptrace["syscalls"][1]
        p, out = self.run_on(no_ptrace)
        self.assertEqual(p.returncode, 1)
        self.assertIn("no rule allowing ptrace to all: not the profile this script knows", p.stderr)
        self.assertIsNone(out)
        p, out = self.run_on({"defaultAction": "SCMP_ACT_ALLOW", "syscalls": []})
        self.assertEqual(p.returncode, 1)
        self.assertIn("not a Docker default profile", p.stderr)
        p, _ = self.run_on("{not json")
        self.assertEqual(p.returncode, 1)
        self.assertIn("sandbox-seccomp-profile: error: ", p.stderr)


if __name__ == "__main__":
    unittest.main()
