"""agt-deny-shim run as itself: --help, --version, list, explain, usage errors.
Self mode needs BOTH the exec path and argv[0] to be named agt-deny-shim."""
import os
import subprocess

from shim_support import SHIM, ShimTestCase, run


def self_run(args, argv0="agt-deny-shim", executable=SHIM):
    return subprocess.run([argv0] + args, executable=executable, capture_output=True,
                          text=True, timeout=30)


class SelfMode(ShimTestCase):

    def test_help_lists_every_command(self):
        p = self_run(["--help"])
        self.assertEqual(p.returncode, 0, p.stderr)
        for cmd in ("--help", "--version", "list", "explain NAME", "install", "allow", "harden",
                    "verify"):
            self.assertIn("  " + cmd, p.stdout)
        self.assertEqual(p.stderr, "")

    def test_version(self):
        p = self_run(["--version"])
        self.assertEqual(p.returncode, 0)
        self.assertRegex(p.stdout, r"^agt-deny-shim \d+\.\d+\.\d+\n$")

    def test_list_has_every_category(self):
        p = self_run(["list"])
        self.assertEqual(p.returncode, 0)
        rows = [l.split(None, 1) for l in p.stdout.splitlines()]
        names = [r[0] for r in rows]
        for n in ("curl", "wget", "ssh", "git", "apt-get", "pip3", "aws", "kubectl", "terraform",
                  "docker", "podman", "ansible-playbook"):
            self.assertIn(n, names)
        for cat in ("network", "remote access", "VCS", "package manager", "cloud", "infra"):
            self.assertIn("  " + cat + " ", p.stdout)
        self.assertEqual(names, sorted(names))

    def test_explain(self):
        p = self_run(["explain", "kubectl"])
        self.assertEqual(p.returncode, 0)
        self.assertIn("kubectl: denied by default (category: infra)", p.stdout)
        p = self_run(["explain", "kubect"])
        self.assertEqual(p.returncode, 1)
        self.assertIn("agt-deny-shim: error: explain: 'kubect' is not a default denied name "
                      "(did you mean 'kubectl'?)", p.stderr)
        p = self_run(["explain"])
        self.assertEqual(p.returncode, 2)

    def test_unknown_command_and_option(self):
        p = self_run(["instal"])
        self.assertEqual(p.returncode, 2)
        self.assertIn("agt-deny-shim: error: unknown command 'instal' (did you mean 'install'?)",
                      p.stderr)
        p = self_run(["--hlep"])
        self.assertEqual(p.returncode, 2)
        self.assertIn("unknown option '--hlep' (did you mean '--help'?)", p.stderr)
        p = self_run([])
        self.assertEqual(p.returncode, 2)
        self.assertIn("usage: agt-deny-shim", p.stderr)
        p = self_run(["\x1b[2Jbad"])
        self.assertEqual(p.returncode, 2)
        self.assertNotIn("\x1b", p.stderr)  # a hostile word is not echoed

    def test_self_mode_through_a_link_named_agt_deny_shim(self):
        link = self.sandbox.link("agt-deny-shim")
        p = subprocess.run([link, "--version"], capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 0)

    def test_shim_path_with_another_argv0_is_a_denial(self):
        d = run(["curl", "--version"], executable=SHIM)
        self.assertValidDenial(d, "curl")

    def test_argv0_alone_does_not_give_self_mode(self):
        d = run(["agt-deny-shim", "list"], executable=self.sandbox.link("wget"))
        rec = self.assertValidDenial(d, "wget")
        self.assertEqual(rec["argv"], ["list"])
