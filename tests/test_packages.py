"""The Debian packages, for real: scripts/package builds them, dpkg installs
them into a clean container of the local Debian base image, the packaged
daemon runs with the unit's own ExecStart as the unit's user with its one
capability, the packaged shim denies, the entry lands in the audit file and
verifies; then remove keeps the configuration and purge takes it.

A full scripts/test run starts scripts/package in the background after the
build and names its result directory in AGT_PREBUILT_PACKAGES: this test
waits for it there instead of building again. Without that variable (a -k
run, tests/run.py alone) it runs scripts/package itself."""
import fcntl
import json
import os
import shlex
import shutil
import subprocess
import tempfile
import time
import unittest

from build_paths import BUILD
from image_support import script

NAME = "agt-deny-packages-test-%d" % os.getpid()
UNIT = "/lib/systemd/system/agt-collector.service"
USER = "_agt-collector"
PACKAGE_TIMEOUT = 3600


def wait_for_prebuilt(directory):
    """Waits for the background scripts/package that scripts/test started
    (it holds DIRECTORY/lock until it has written DIRECTORY/status); raises
    with its log's tail unless it succeeded."""
    with open(os.path.join(directory, "lock")) as lock:
        deadline = time.monotonic() + PACKAGE_TIMEOUT
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise AssertionError("the background scripts/package in %s did not finish in %d s"
                                         % (directory, PACKAGE_TIMEOUT))
                time.sleep(1)
    try:
        with open(os.path.join(directory, "status")) as f:
            status = f.read().strip()
    except FileNotFoundError:
        status = None  # it died before it could write one
    if status != "0":
        with open(os.path.join(directory, "package.log"), errors="replace") as f:
            tail = "".join(f.readlines()[-40:])
        raise AssertionError("the background scripts/package failed (%s); the end of %s:\n%s"
                             % ("exit %s" % status if status is not None else "no exit status",
                                os.path.join(directory, "package.log"), tail))


class Packages(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        prebuilt = os.environ.get("AGT_PREBUILT_PACKAGES")
        if prebuilt:
            # Built with a TMPDIR of its own too, left in place with its log.
            wait_for_prebuilt(prebuilt)
            cls.debs = os.path.join(prebuilt, "debs")
            tmp = os.path.join(prebuilt, "tmp")
        else:
            # Class cleanups, unlike tearDownClass, run when setUpClass fails too.
            cls.debs = tempfile.mkdtemp(prefix="agt-debs.")
            cls.addClassCleanup(shutil.rmtree, cls.debs, ignore_errors=True)
            # A TMPDIR of its own, to see what the packaging leaves there.
            tmp = tempfile.mkdtemp(prefix="agt-package-tmp.")
            cls.addClassCleanup(shutil.rmtree, tmp, ignore_errors=True)
            script("package", "--out-dir", cls.debs,
                   env=dict(os.environ, AGT_BUILD_DIR=BUILD, TMPDIR=tmp), timeout=PACKAGE_TIMEOUT)
        cls.package_left = sorted(os.listdir(tmp))
        out = script("docker-engine", "start", timeout=300).stdout.strip().splitlines()[-1]
        if not out.startswith("DOCKER_HOST="):
            raise AssertionError("scripts/docker-engine start printed %r" % out)
        cls.env = dict(os.environ, DOCKER_HOST=out.split("=", 1)[1])
        # The container has no network and minbase has no systemd: the
        # dependency that creates the user (sysusers.d), and librelp (the
        # forwarder's RELP client), come from the host's Debian mirror, as
        # apt would fetch them.
        cls.deps = tempfile.mkdtemp(prefix="agt-debs-deps.")
        cls.addClassCleanup(shutil.rmtree, cls.deps, ignore_errors=True)
        subprocess.run(["apt-get", "download", "systemd-standalone-sysusers", "librelp0"],
                       cwd=cls.deps,
                       check=True, capture_output=True, timeout=600)
        base = script("base-image", env=cls.env).stdout.strip().splitlines()[-1]
        # The unit's one capability, granted to the container so the
        # service user can hold it as an ambient capability.
        subprocess.run(["docker", "run", "-d", "--name", NAME, "--network", "none",
                        "--cap-add", "DAC_READ_SEARCH", "-v", cls.debs + ":/debs:ro", "-v", cls.deps + ":/deps:ro",
                        base, "sleep", "infinity"],
                       check=True, capture_output=True, env=cls.env, timeout=300)

    @classmethod
    def tearDownClass(cls):
        if hasattr(cls, "env"):
            subprocess.run(["docker", "rm", "-f", NAME], capture_output=True, env=cls.env,
                           timeout=300)

    def sh(self, command, user="root", check=True, timeout=300):
        p = subprocess.run(["docker", "exec", "-u", user, NAME, "sh", "-c", command],
                           capture_output=True, text=True, env=self.env, timeout=timeout)
        if check and p.returncode != 0:
            self.fail("%s: exit %d\n%s\n%s" % (command, p.returncode, p.stdout, p.stderr))
        return p

    def test_packaging_leaves_no_temporary_files(self):
        self.assertEqual(self.package_left, [])

    def test_install_run_deny_remove_purge(self):
        debs = sorted(os.listdir(self.debs))
        self.assertEqual([d.split("_")[0] for d in debs], ["agt-collector", "agt-deny-shim"])
        # The shim's package holds the binary and its man page, nothing else.
        listing = subprocess.run(["dpkg-deb", "-c", os.path.join(self.debs, debs[1])],
                                 capture_output=True, text=True, check=True).stdout
        files = sorted(line.split()[-1] for line in listing.splitlines()
                       if not line.startswith("d"))
        self.assertEqual(files, ["./usr/lib/agt/agt-deny-shim",
                                 "./usr/share/doc/agt-deny-shim/changelog.gz",
                                 "./usr/share/doc/agt-deny-shim/copyright",
                                 "./usr/share/lintian/overrides/agt-deny-shim",
                                 "./usr/share/man/man1/agt-deny-shim.1.gz"])

        self.sh("dpkg -i /deps/*.deb")
        self.sh("dpkg -i /debs/*.deb")
        for path in ("/usr/bin/agt-collector", UNIT, "/etc/agt-collector/config.json",
                     "/etc/logrotate.d/agt-collector", "/usr/lib/sysusers.d/agt-collector.conf",
                     "/usr/lib/tmpfiles.d/agt-collector.conf",
                     "/usr/share/man/man1/agt-collector.1.gz",
                     "/usr/share/agt-collector/dropins/README",
                     "/usr/share/agt-collector/dropins/listen.conf",
                     "/usr/share/agt-collector/dropins/append-only.conf",
                     "/usr/share/agt-collector/dropins/forward.conf"):
            self.sh("test -e " + path)
        # postinst: the user from sysusers.d, and a key it alone reads.
        self.assertIn("/usr/sbin/nologin", self.sh("getent passwd " + USER).stdout)
        self.assertEqual(self.sh("stat -c '%s %a %U' /etc/agt-collector/audit.key").stdout.split(),
                         ["32", "600", USER])
        key_before = self.sh("sha256sum /etc/agt-collector/audit.key").stdout
        self.sh("agt-collector check-config /etc/agt-collector/config.json")

        # The directories systemd makes for the unit (StateDirectory,
        # LogsDirectory); the container runs no systemd.
        self.sh("install -d -o %s -m 0700 /var/lib/agt-collector && "
                "install -d -o %s -m 0750 /var/log/agt-collector" % (USER, USER))
        # A sandbox's log directory, readable by its own user only: the
        # collector gets in through CAP_DAC_READ_SEARCH alone.
        self.sh("install -d -o 65534 -g 65534 -m 0700 /var/log/agt/sandboxes/sb-pkg")

        unit = self.sh("cat " + UNIT).stdout
        exec_start = [l.split("=", 1)[1] for l in unit.splitlines() if l.startswith("ExecStart=")]
        self.assertEqual(len(exec_start), 1)
        caps = [l.split("=", 1)[1] for l in unit.splitlines()
                if l.startswith("AmbientCapabilities=")]
        self.assertEqual(caps, ["CAP_DAC_READ_SEARCH"])
        run = ("setpriv --reuid=%s --regid=%s --init-groups --inh-caps=-all,+dac_read_search"
               " --ambient-caps=-all,+dac_read_search --bounding-set=-all,+dac_read_search"
               " --no-new-privs -- %s" % (USER, USER, exec_start[0]))
        self.sh("nohup %s >/tmp/collector.log 2>&1 & echo $! >/tmp/collector.pid" % run)
        self.addCleanup(self.sh, "kill $(cat /tmp/collector.pid)", check=False)

        # A denial through the packaged shim, as the sandbox's user.
        denied = self.sh("mkdir -p /tmp/bin && ln -sf /usr/lib/agt/agt-deny-shim /tmp/bin/curl && "
                         "AGT_DENIED_LOG=/var/log/agt/sandboxes/sb-pkg/denied.log "
                         "/tmp/bin/curl -u me:pw https://example.com/x", user="65534",
                         check=False)
        self.assertEqual(denied.returncode, 126, denied.stderr)
        audit = "/var/log/agt-collector/audit.jsonl"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.sh("grep -c sb-pkg %s 2>/dev/null" % audit, check=False).stdout.strip() == "1":
                break
            time.sleep(0.5)
        log = self.sh("cat /tmp/collector.log").stdout
        entry = self.sh("cat " + audit, check=False).stdout
        entries = [json.loads(line) for line in entry.splitlines()]
        self.assertEqual([(e["sandbox_id"], e["resource"]) for e in entries], [("sb-pkg", "curl")],
                         log)
        self.assertEqual(entries[0]["data"]["argv"][1], "me:[REDACTED]")
        self.assertNotIn("me:pw", entry)
        self.sh("agt-collector verify --key-file /etc/agt-collector/audit.key " + audit)
        self.sh("kill $(cat /tmp/collector.pid)")

        # Remove: programs gone, configuration and key kept.
        self.sh("dpkg -r agt-collector agt-deny-shim")
        self.sh("test ! -e /usr/bin/agt-collector && test ! -e /usr/lib/agt/agt-deny-shim")
        self.sh("test -e /etc/agt-collector/config.json")
        self.assertEqual(self.sh("sha256sum /etc/agt-collector/audit.key").stdout, key_before)
        # Purge: configuration, key and checkpoints gone; the audit trail stays.
        self.sh("dpkg -P agt-collector agt-deny-shim")
        self.sh("test ! -e /etc/agt-collector && test ! -e /var/lib/agt-collector")
        self.sh("test -s " + audit)
        status = self.sh("dpkg-query -W -f='${db:Status-Status}' agt-collector", check=False)
        self.assertIn(status.stdout.strip(), ("", "not-installed"))


class PrebuiltPackagesWait(unittest.TestCase):
    """wait_for_prebuilt against a real process holding the lock the way
    scripts/test's background build does (taken before the fork): it waits
    for it, and a failed or vanished build fails with its log's tail."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="agt-prebuilt-wait.")
        self.addCleanup(shutil.rmtree, self.dir, ignore_errors=True)
        with open(os.path.join(self.dir, "package.log"), "w") as f:
            f.writelines("log line %d\n" % i for i in range(1, 101))

    def build_in_background(self, command):
        with open(os.path.join(self.dir, "lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            p = subprocess.Popen(["sh", "-c", command], cwd=self.dir, pass_fds=[lock.fileno()])
        self.addCleanup(p.wait)
        return p

    def test_waits_until_the_build_wrote_its_status(self):
        p = self.build_in_background("sleep 2; echo 0 >status")
        wait_for_prebuilt(self.dir)
        self.assertIsNotNone(p.poll())

    def test_a_failed_build_fails_with_its_log_tail(self):
        self.build_in_background("sleep 1; echo 2 >status")
        with self.assertRaises(AssertionError) as failure:
            wait_for_prebuilt(self.dir)
        message = str(failure.exception)
        self.assertIn("failed (exit 2)", message)
        self.assertIn("log line 100\n", message)
        self.assertIn("log line 61\n", message)
        self.assertNotIn("log line 60\n", message)

    def test_a_build_that_died_before_its_status_fails(self):
        self.build_in_background("kill -9 $$")
        with self.assertRaises(AssertionError) as failure:
            wait_for_prebuilt(self.dir)
        self.assertIn("failed (no exit status)", str(failure.exception))


if __name__ == "__main__":
    unittest.main()
