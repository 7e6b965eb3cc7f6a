"""deploy/compose/, for real: Debian's docker-compose brings up the
collector and one hardened sandbox on the private engine (images built
locally from the Debian base image, reusing the engine's layer cache); a
denial inside the sandbox becomes a verified entry in the audit file on the
host, and the metrics file says so."""
import json
import os
import shutil
import subprocess
import tempfile
import time
import unittest

from build_paths import BUILD, COLLECTOR, TOP
from image_support import script

PROJECT = "agt-deny-compose-test-%d" % os.getpid()
COMPOSE_FILE = os.path.join(TOP, "deploy", "compose", "docker-compose.yml")
SANDBOX_TAG = "agt-deny/sandbox:compose-test-%d" % os.getpid()
COLLECTOR_TAG = "agt-deny/collector:compose-test-%d" % os.getpid()


def last_line(p):
    return p.stdout.strip().splitlines()[-1]


class ComposeDeployment(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        engine = last_line(script("docker-engine", "start", timeout=300))
        if not engine.startswith("DOCKER_HOST="):
            raise AssertionError("scripts/docker-engine start printed %r" % engine)
        cls.env = dict(os.environ, DOCKER_HOST=engine.split("=", 1)[1],
                       AGT_BUILD_DIR=BUILD)
        base = last_line(script("base-image", env=cls.env))
        cls.images = []
        script("build-image", "--base", base, "--tag", SANDBOX_TAG, env=cls.env)
        cls.images.append(SANDBOX_TAG)
        script("build-collector-image", "--base", base, "--tag", COLLECTOR_TAG, env=cls.env)
        cls.images.append(COLLECTOR_TAG)

    @classmethod
    def tearDownClass(cls):
        for tag in getattr(cls, "images", []):
            subprocess.run(["docker", "rmi", "-f", tag], capture_output=True, env=cls.env,
                           timeout=300)

    def setUp(self):
        self.data = tempfile.mkdtemp(prefix="agt-compose.")
        self.addCleanup(shutil.rmtree, self.data, ignore_errors=True)
        os.chmod(self.data, 0o755)
        sb = os.path.join(self.data, "sandboxes", "sb-1")
        os.makedirs(sb)
        os.chown(sb, 65534, 65534)
        for d in ("audit", "state"):
            os.makedirs(os.path.join(self.data, d))
        self.key = os.path.join(self.data, "audit.key")
        subprocess.run([COLLECTOR, "keygen", "--out", self.key], check=True, capture_output=True)
        self.compose_env = dict(self.env, AGT_DATA=self.data, AGT_COLLECTOR_IMAGE=COLLECTOR_TAG,
                                AGT_SANDBOX_IMAGE=SANDBOX_TAG)
        self.addCleanup(self.compose, "down", "--volumes", "--timeout", "20", check=False)

    def compose(self, *args, check=True, timeout=300):
        p = subprocess.run(["docker-compose", "-p", PROJECT, "-f", COMPOSE_FILE] + list(args),
                           capture_output=True, text=True, env=self.compose_env, timeout=timeout)
        if check and p.returncode != 0:
            self.fail("docker-compose %s: exit %d\n%s\n%s"
                      % (" ".join(args), p.returncode, p.stdout[-3000:], p.stderr[-3000:]))
        return p

    def wait_for(self, condition, what, timeout=60):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if condition():
                return
            time.sleep(0.2)
        self.fail("%s; collector logs:\n%s" % (what, self.compose("logs", "collector",
                                                                 check=False).stdout[-3000:]))

    def test_a_denial_in_the_sandbox_reaches_the_verified_audit_file(self):
        self.compose("up", "-d")
        audit = os.path.join(self.data, "audit", "audit.jsonl")
        # The collector has started once it has opened its audit file.
        self.wait_for(lambda: os.path.exists(audit), "no audit file")
        denied = self.compose("exec", "-T", "sb-1", "curl", "-sSL", "https://example.com/x",
                              check=False)
        self.assertEqual(denied.returncode, 126, denied.stdout + denied.stderr)
        self.assertIn("command denied: curl", denied.stderr)
        # Code in the sandbox runs as the provider runs it: python -c.
        code = "import subprocess; print(subprocess.run(['wget', 'x']).returncode)"
        shelled = self.compose("exec", "-T", "sb-1", "python", "-c", code)
        self.assertEqual(shelled.stdout.strip(), "126")

        def two_entries():
            with open(audit) as f:
                return len(f.read().splitlines()) == 2
        self.wait_for(two_entries, "two entries never reached %s" % audit)
        with open(audit) as f:
            entries = [json.loads(l) for l in f]
        self.assertEqual([(e["sandbox_id"], e["resource"], e["data"]["argv"]) for e in entries],
                         [("sb-1", "curl", ["-sSL", "https://example.com/x"]),
                          ("sb-1", "wget", ["x"])])
        r = subprocess.run([COLLECTOR, "verify", "--key-file", self.key, audit],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        # The sandbox cannot reach the audit file or the other sandboxes' logs.
        peek = self.compose("exec", "-T", "sb-1", "ls", "/var/log/agt-collector", check=False)
        self.assertNotEqual(peek.returncode, 0)
        prom = os.path.join(self.data, "state", "agt-collector.prom")
        self.compose("stop", "--timeout", "20", "collector")
        with open(prom) as f:
            self.assertIn("agt_collector_entries_written_total 2\n", f.read())
        state = self.compose("ps", "-q", "collector").stdout.strip()
        code = subprocess.run(["docker", "inspect", "--format", "{{.State.ExitCode}}", state],
                              capture_output=True, text=True, env=self.env).stdout.strip()
        self.assertEqual(code, "0")  # SIGTERM: finished and exited cleanly


if __name__ == "__main__":
    unittest.main()
