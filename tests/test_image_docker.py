"""Dockerfile.sandbox built by a real Docker engine and run the way a sandbox
provider runs it (--network none --read-only --cap-drop ALL
--security-opt no-new-privileges, user 65534, a host directory mounted for
AGT_DENIED_LOG). The private engine, the debootstrap base image and the build
are all made here (scripts/docker-engine, scripts/base-image,
scripts/build-image): a fresh machine needs nothing else. When Docker cannot
start, every test here fails."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

from image_support import (BUILD, HUMAN_LINE, PINNED, SHIM, SHIM_IN_IMAGE, TOP, parse_record,
                           run_shim, snapshot)

# Per run: several test runs may share the private engine at once.
TAG = "agt-deny/sandbox:test-%d" % os.getpid()
ALLOWED = "python3 cat echo ls sleep"


def script(name, *args, env=None, timeout=1800):
    p = subprocess.run([os.path.join(TOP, "scripts", name)] + list(args), capture_output=True, text=True,
                       env=env, timeout=timeout)
    if p.returncode != 0:
        raise AssertionError("scripts/%s %s failed (exit %d):\n%s\n%s"
                             % (name, " ".join(args), p.returncode, p.stdout[-4000:], p.stderr[-4000:]))
    return p


class DockerImage(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        t0 = time.monotonic()
        out = script("docker-engine", "start", timeout=300).stdout.strip().splitlines()[-1]
        if not out.startswith("DOCKER_HOST="):
            raise AssertionError("scripts/docker-engine start printed %r" % out)
        cls.env = dict(os.environ, DOCKER_HOST=out.split("=", 1)[1], AGT_BUILD_DIR=BUILD)
        t1 = time.monotonic()
        cls.base = script("base-image", env=cls.env).stdout.strip().splitlines()[-1]
        t2 = time.monotonic()
        # --no-cache: every layer runs again, so its report is in the log.
        build = script("build-image", "--base", cls.base, "--tag", TAG, "--no-cache", env=cls.env)
        cls.build_log = build.stderr
        t3 = time.monotonic()
        cls.timings = "engine %.1fs, base image %.1fs, image build %.1fs" % (t1 - t0, t2 - t1, t3 - t2)
        sys.stderr.write("\nimage tests: %s\n" % cls.timings)

    @classmethod
    def tearDownClass(cls):
        # The engine stays up for other runs; this run's image goes (with the
        # layers only it used).
        if hasattr(cls, "env"):
            subprocess.run(["docker", "rmi", "-f", TAG], capture_output=True, env=cls.env, timeout=300)

    def docker(self, *args, check=True, timeout=300, **kw):
        p = subprocess.run(["docker"] + list(args), capture_output=True, env=self.env, timeout=timeout, **kw)
        if check and p.returncode != 0:
            self.fail("docker %s: exit %d\n%s" % (" ".join(args[:4]), p.returncode, p.stderr.decode()[-2000:]))
        return p

    def log_dir(self):
        d = tempfile.mkdtemp(prefix="agt-image-log.")
        self.addCleanup(shutil.rmtree, d, ignore_errors=True)
        os.chown(d, 65534, 65534)  # the sandbox user writes the log
        os.chmod(d, 0o700)
        return d

    def sandbox(self, *cmd, log_dir=None, image=TAG):
        """docker run as a sandbox provider does; returns (exit, stdout, stderr)."""
        args = ["run", "--rm", "--network", "none", "--read-only", "--cap-drop", "ALL",
                "--security-opt", "no-new-privileges", "--user", "65534:65534"]
        if log_dir is not None:
            args += ["-e", "AGT_DENIED_LOG=/var/log/agt/denied.log", "-v", "%s:/var/log/agt" % log_dir]
        p = self.docker(*(args + [image] + list(cmd)), check=False)
        if p.returncode == 125:
            self.fail("docker run could not start the container: %s" % p.stderr.decode())
        return p.returncode, p.stdout.decode(), p.stderr.decode()

    def logged(self, log_dir):
        path = os.path.join(log_dir, "denied.log")
        if not os.path.exists(path):
            return []
        with open(path) as f:
            return [parse_record(line) for line in f.read().splitlines()]

    def assertDenied(self, name, stderr):
        lines = stderr.splitlines()
        self.assertEqual(len(lines), 2, stderr)
        rec = parse_record(lines[0])
        self.assertEqual(rec["binary"], name)
        self.assertEqual(rec["uid"], 65534)
        self.assertEqual(lines[1], HUMAN_LINE % name)
        return rec

    # -- the build ---------------------------------------------------------

    def test_build_ran_every_layer_through_the_shim(self):
        log = self.build_log
        for step in ("allow", "harden", "install", "verify"):
            self.assertIn('RUN ["/usr/local/lib/agt/agt-deny-shim", "%s", "--root", "/"]' % step, log)
        self.assertIn("agt-deny-shim: verify: ok:", log)

    # -- denials -----------------------------------------------------------

    def test_denied_by_name_and_by_absolute_path(self):
        logs = self.log_dir()
        calls = [("curl", "curl"), ("/usr/bin/curl", "curl"), ("/bin/curl", "curl"),
                 ("apt-get", "apt-get"), ("/usr/bin/apt-get", "apt-get"), ("/usr/bin/dpkg", "dpkg"),
                 ("/usr/local/bin/kubectl", "kubectl"), ("git", "git")]
        for cmd, name in calls:
            code, out, err = self.sandbox(cmd, "-sSL", "https://user:secret@example.com/x", log_dir=logs)
            self.assertEqual(code, 126, (cmd, err))
            self.assertEqual(out, "")
            rec = self.assertDenied(name, err)
            self.assertEqual(rec["argv"], ["-sSL", "https://user:[REDACTED]@example.com/x"])
            self.assertNotIn("secret", err)
        logged = self.logged(logs)
        self.assertEqual([r["binary"] for r in logged], [name for _, name in calls])
        self.assertTrue(all(r["confined"] for r in logged))
        with open(os.path.join(logs, "denied.log")) as f:
            self.assertNotIn("secret", f.read())

    def test_python_subprocess_gets_126_and_the_record(self):
        logs = self.log_dir()
        prog = ("import json, subprocess\n"
                "r = subprocess.run(['curl', 'https://example.com'], capture_output=True, text=True)\n"
                "a = subprocess.run(['/usr/bin/wget', '-q', 'x'], capture_output=True, text=True)\n"
                "print(json.dumps([r.returncode, r.stderr, a.returncode, a.stderr]))\n")
        code, out, err = self.sandbox("python3", "-c", prog, log_dir=logs)
        self.assertEqual(code, 0, err)
        curl_code, curl_err, wget_code, wget_err = json.loads(out)
        self.assertEqual(curl_code, 126)
        self.assertEqual(self.assertDenied("curl", curl_err)["argv"], ["https://example.com"])
        self.assertEqual(wget_code, 126)
        self.assertEqual(self.assertDenied("wget", wget_err)["path"], "/usr/bin/wget")
        self.assertEqual([r["binary"] for r in self.logged(logs)], ["curl", "wget"])

    def test_shells_busybox_and_interpreters_do_not_run(self):
        prog = ("import json, os, subprocess\n"
                "out = {}\n"
                "for p in ['/bin/sh', '/bin/bash', '/usr/bin/dash', '/bin/busybox', '/usr/bin/perl',\n"
                "          '/usr/bin/awk', '/usr/bin/base64']:\n"
                "    try:\n"
                "        subprocess.run([p, '-c', 'true'], capture_output=True)\n"
                "        out[p] = 'ran'\n"
                "    except PermissionError:\n"
                "        out[p] = 'EACCES'\n"
                "    except FileNotFoundError:\n"
                "        out[p] = 'ENOENT'\n"
                "out['os.system'] = os.system('true')\n"
                "print(json.dumps(out))\n")
        code, out, err = self.sandbox("python3", "-c", prog)
        self.assertEqual(code, 0, err)
        res = json.loads(out)
        for p in ("/bin/sh", "/bin/bash", "/usr/bin/dash", "/bin/busybox", "/usr/bin/perl", "/usr/bin/awk",
                  "/usr/bin/base64"):
            self.assertEqual(res[p], "EACCES", p)
        self.assertNotEqual(res["os.system"], 0)  # /bin/sh cannot run
        code, out, err = self.sandbox("sh", "-c", "echo escaped")
        self.assertNotEqual(code, 0)
        self.assertNotIn("escaped", out)

    def test_without_the_log_variable_the_default_log_records(self):
        # No AGT_DENIED_LOG in the container: the shim's built-in default,
        # /var/log/agt/denied.log, in the volume the image declares.
        logs = self.log_dir()
        p = self.docker("run", "--rm", "--network", "none", "--read-only", "--cap-drop", "ALL",
                        "--security-opt", "no-new-privileges", "--user", "65534:65534",
                        "-v", "%s:/var/log/agt" % logs, TAG, "curl", "-u", "me:pw", "https://example.com",
                        check=False)
        self.assertEqual(p.returncode, 126, p.stderr)
        rec = self.assertDenied("curl", p.stderr.decode())
        self.assertEqual(self.logged(logs), [rec])
        inspect = self.docker("image", "inspect", "--format", "{{json .Config.Volumes}}", TAG)
        self.assertIn("/var/log/agt", json.loads(inspect.stdout))

    def test_allowed_tools_run(self):
        code, out, err = self.sandbox("python3", "-c", "print('py ok')")
        self.assertEqual((code, out), (0, "py ok\n"), err)
        code, out, err = self.sandbox("echo", "echo ok")
        self.assertEqual((code, out), (0, "echo ok\n"), err)
        code, out, err = self.sandbox("ls", "/usr/local/sandbox-bin")
        self.assertEqual(code, 0, err)
        self.assertIn("python3", out.split())
        self.assertIn("curl", out.split())
        code, out, err = self.sandbox("cat", "/etc/debian_version")
        self.assertEqual(code, 0, err)
        code, out, err = self.sandbox("sleep", "0")
        self.assertEqual(code, 0, err)
        code, out, err = self.sandbox("id", "-u")
        self.assertNotEqual(code, 0)  # not allowed: not on PATH
        self.assertNotIn("65534", out)

    # -- verify ------------------------------------------------------------

    def test_verify_inside_the_running_image(self):
        code, out, err = self.sandbox(SHIM_IN_IMAGE, "verify", "--root", "/")
        self.assertEqual(code, 0, out + err)
        self.assertRegex(out, r"agt-deny-shim: verify: ok: \d+ denied, 5 allowed")
        # The built image is already what install wants: nothing to do, even read-only.
        code, out, err = self.sandbox(SHIM_IN_IMAGE, "install", "--root", "/")
        self.assertEqual(code, 0, out + err)
        self.assertRegex(out, r"\d+ names: 0 links made")
        # A change it cannot make (read-only root, user nobody) is a clear error.
        code, out, err = self.sandbox(SHIM_IN_IMAGE, "install", "--root", "/", "--names", "newtool")
        self.assertEqual(code, 1, out + err)
        self.assertRegex(err, r"agt-deny-shim: error: install: (symlinkat|mkdirat) .*: (Read-only file system|"
                              r"Permission denied)")

    def test_verify_the_exported_root_and_a_tampered_copy(self):
        cid = self.docker("create", TAG).stdout.decode().strip()
        self.addCleanup(self.docker, "rm", "-f", cid, check=False)
        root = tempfile.mkdtemp(prefix="agt-image-export.")
        self.addCleanup(shutil.rmtree, root, ignore_errors=True)
        export = subprocess.Popen(["docker", "export", cid], stdout=subprocess.PIPE, env=self.env)
        untar = subprocess.run(["tar", "-x", "-p", "--numeric-owner", "-C", root], stdin=export.stdout,
                               capture_output=True)
        export.stdout.close()
        self.assertEqual(export.wait(timeout=300), 0)
        self.assertEqual(untar.returncode, 0, untar.stderr)
        args = ["verify", "--root", root, "--allowed", ALLOWED]
        ok = run_shim(args)
        self.assertEqual(ok.returncode, 0, ok.stdout + ok.stderr)
        self.assertEqual(os.readlink(os.path.join(root, "usr/bin/curl")), SHIM_IN_IMAGE)
        before = snapshot(root)

        os.unlink(os.path.join(root, "usr/bin/curl"))
        shutil.copy2("/bin/true", os.path.join(root, "usr/bin/curl"))       # the real tool back
        os.chmod(os.path.join(root, "usr/bin/dash"), 0o755)                  # a shell runs again
        os.symlink("/usr/bin/dash", os.path.join(root, PINNED, "sh"))       # and is on PATH
        bad = run_shim(args)
        self.assertEqual(bad.returncode, 1, bad.stdout)
        drift = bad.stdout.splitlines()
        self.assertIn("agt-deny-shim: verify: drift: /usr/bin/curl: denied name is not the shim "
                      "(regular file, mode 0755)", drift)
        self.assertIn("agt-deny-shim: verify: drift: /usr/local/sandbox-bin/sh: neither an allowed name "
                      "nor a shim link (symlink to \"/usr/bin/dash\")", drift)
        self.assertIn("agt-deny-shim: verify: drift: /usr/bin/dash: stripped name is executable "
                      "(/usr/bin/dash mode 0755)", drift)
        self.assertTrue(all(line.startswith("agt-deny-shim: verify: drift: ") for line in drift), drift)
        self.assertIn("drifts found", bad.stderr)
        self.assertNotEqual(snapshot(root), before)

    # -- build-args --------------------------------------------------------

    def test_a_custom_denied_list_warns_and_a_bad_name_fails_the_build(self):
        tag = TAG + "-custom"
        # --no-cache: an identical earlier build (same shim, same args) would
        # let the engine reuse the install layer, and its warnings never print.
        p = script("build-image", "--base", self.base, "--tag", tag, "--no-cache",
                   "--build-arg", "DENIED_LOGGED_BIN_NAMES=curl wget",
                   "--build-arg", "ALLOWED_BIN_NAMES=python3 ls git", env=self.env)
        self.addCleanup(self.docker, "rmi", "-f", tag, check=False)
        self.assertIn("agt-deny-shim: warning: install: DENIED_LOGGED_BIN_NAMES leaves out", p.stderr)
        self.assertIn("not found at any real path, not allowed: git", p.stderr)
        code, out, err = self.sandbox("curl", "x", image=tag, log_dir=self.log_dir())
        self.assertEqual(code, 126)
        self.assertDenied("curl", err)
        code, out, err = self.sandbox(SHIM_IN_IMAGE, "verify", "--root", "/", image=tag)
        self.assertEqual(code, 0, out + err)

        bad = subprocess.run([os.path.join(TOP, "scripts", "build-image"), "--base", self.base, "--tag",
                              tag + "-bad", "--build-arg", "DENIED_LOGGED_BIN_NAMES=curl *"],
                             capture_output=True, text=True, env=self.env, timeout=600)
        self.assertNotEqual(bad.returncode, 0)
        self.assertIn('agt-deny-shim: error: install: bad name "*" in DENIED_LOGGED_BIN_NAMES', bad.stderr)
        self.assertIn("build-image: error: docker build of %s-bad failed" % tag, bad.stderr)
