"""agt-collector import, validate, verify and forward confine themselves once they
have started (collector/self_confine.h): the real binary, watched by strace,
sets no_new_privs, applies a Landlock ruleset and loads a seccomp filter,
all before it opens its first input. What each layer refuses is proven in
the kernel by the unit test beside self_confine.cc."""
import os
import re
import subprocess
import tempfile
import unittest

import forward_support
from build_paths import COLLECTOR
from collector_support import record
from strace_support import strace_argv


def sanitizer_build():
    """The ASan build leaves seccomp off on purpose (collector/self_confine.cc)."""
    with open(COLLECTOR, "rb") as f:
        return b"libasan.so" in f.read()


def traced(args):
    """Runs the collector under strace; returns (process, the trace's lines)."""
    env = dict(os.environ)
    if "ASAN_OPTIONS" in env:
        # The sanitized build (scripts/test-sanitized): LeakSanitizer cannot
        # stop the world under ptrace, so leaks are left to its other runs.
        env["ASAN_OPTIONS"] += ":detect_leaks=0"
    with tempfile.NamedTemporaryFile("r", suffix=".strace") as trace:
        p = subprocess.run(
            strace_argv(trace.name,
                        "trace=prctl,seccomp,landlock_create_ruleset,landlock_restrict_self,openat")
            + [COLLECTOR] + args, capture_output=True, text=True, timeout=120, env=env)
        return p, trace.read().splitlines()


def assert_confined_before(testcase, lines, first_use):
    """In a strace of a confining command, no_new_privs, the Landlock ruleset
    and the seccomp filter each succeed, in that order, before the first line
    matching `first_use`."""
    def index(pattern):
        for i, line in enumerate(lines):
            if re.search(pattern, line):
                return i
        testcase.fail("no %r in the trace:\n%s" % (pattern, "\n".join(lines[-30:])))
    nnp = index(r"prctl\(PR_SET_NO_NEW_PRIVS, 1.*= 0$")
    restrict = index(r"landlock_restrict_self\(.*= 0$")
    first = index(first_use)
    testcase.assertLess(nnp, restrict)
    testcase.assertLess(restrict, first)
    # libseccomp loads with seccomp(2) (or prctl(PR_SET_SECCOMP) on old kernels).
    seccomp_pattern = r"(seccomp\(SECCOMP_SET_MODE_FILTER|prctl\(PR_SET_SECCOMP).*= 0$"
    if sanitizer_build():
        testcase.assertFalse(any(re.search(seccomp_pattern, line) for line in lines))
    else:
        seccomp = index(seccomp_pattern)
        testcase.assertLess(restrict, seccomp)
        testcase.assertLess(seccomp, first)


class SelfConfinement(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.key = os.path.join(self.dir, "audit.key")
        self.log = os.path.join(self.dir, "denied.log")
        self.out = os.path.join(self.dir, "audit.jsonl")
        subprocess.run([COLLECTOR, "keygen", "--out", self.key], check=True, capture_output=True)
        with open(self.log, "w") as f:
            f.write(record() + "\n")

    def tearDown(self):
        self.tmp.cleanup()

    def assert_confined_before_opening(self, lines, first_input):
        # The first open to read it (the Landlock rule's O_PATH open comes before).
        assert_confined_before(self, lines, r'openat\(.*"%s", (?!.*O_PATH)' % re.escape(first_input))

    def assert_nothing_refused(self, lines):
        # What a command needs is opened before it confines itself, or granted:
        # no open of its own fails on the ruleset (OpenSSL's configuration was).
        refused = [line for line in lines if "openat(" in line and "EACCES" in line]
        self.assertEqual(refused, [])

    def test_import_confines_itself_before_reading_a_log(self):
        p, lines = traced(["import", "--key-file", self.key, "--out", self.out,
                           "--sandbox-id", "sb-1", self.log])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("not fully confined", p.stderr)
        self.assert_confined_before_opening(lines, self.log)
        self.assert_nothing_refused(lines)

    def test_validate_confines_itself_before_reading_a_log(self):
        p, lines = traced(["validate", self.log])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assert_confined_before_opening(lines, self.log)
        self.assert_nothing_refused(lines)

    def test_verify_confines_itself_before_reading_the_file(self):
        subprocess.run([COLLECTOR, "import", "--key-file", self.key, "--out", self.out,
                        "--sandbox-id", "sb-1", self.log], check=True, capture_output=True)
        p, lines = traced(["verify", "--key-file", self.key, self.out])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assert_confined_before_opening(lines, self.out)
        self.assert_nothing_refused(lines)
        # verify hashes only after it has confined itself: OpenSSL's
        # configuration must have been read before (self_confine.cc).
        config = [i for i, line in enumerate(lines)
                  if re.search(r'openat\(.*"[^"]*/openssl\.cnf".*= \d+$', line)]
        restrict = [i for i, line in enumerate(lines) if "landlock_restrict_self(" in line]
        self.assertTrue(config, "OpenSSL's configuration was never read:\n" + "\n".join(lines))
        self.assertLess(config[0], restrict[0])

    def test_forward_confines_itself_before_reading_or_connecting(self):
        subprocess.run([COLLECTOR, "import", "--key-file", self.key, "--out", self.out,
                        "--sandbox-id", "sb-1", self.log], check=True, capture_output=True)
        pki = forward_support.make_pki(os.path.join(self.dir, "pki"))
        rcv = forward_support.Receiver(self, os.path.join(self.dir, "rcv"), pki)
        rcv.start()
        state = os.path.join(self.dir, "state")
        p, lines = traced(["forward", "--out", self.out, "--state-dir", state,
                           "--forward", "relp+tls://localhost:%d" % rcv.port,
                           "--forward-ca", pki["ca"], "--forward-cert", pki["client_cert"],
                           "--forward-key", pki["client_key"], "--until-caught-up"])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("1 entries forwarded", p.stderr)
        self.assertRegex(p.stderr, r"forward: confined: no_new_privs, .*Landlock ABI \d+ - left "
                                   r"open: reads and TCP connect")
        # Before the audit file is read and before the certificates are.
        self.assert_confined_before_opening(lines, self.out)
        assert_confined_before(self, lines, r'openat\(.*"%s"' % re.escape(pki["client_key"]))
        self.assert_nothing_refused(lines)
        with open(rcv.file_for(forward_support.syslog_hostname())) as f:
            self.assertEqual(len(f.readlines()), 1)


if __name__ == "__main__":
    unittest.main()
