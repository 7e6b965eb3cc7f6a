"""agt-deny-shim issue points 5 and 7: exit 126 whatever fails; self-confinement."""
import os
import re
import subprocess

from shim_support import EXEC_SECCOMP_REFUSED, Denial, ShimTestCase, run, strict_json
from socket_peer import SeqpacketPeer
from strace_support import strace_argv


class FailClosed(ShimTestCase):

    def test_closed_fds_0_1_2_line_lands_once_in_the_log(self):
        link = self.sandbox.link("git")
        log = self.sandbox.join("denied.log")

        def close_std():
            for fd in (0, 1, 2):
                os.close(fd)

        proc = subprocess.run([link, "clone", "x"], env={"AGT_DENIED_LOG": log},
                              preexec_fn=close_std, timeout=30)
        self.assertEqual(proc.returncode, 126)
        with open(log, "rb") as f:
            lines = f.read().split(b"\n")
        self.assertEqual(lines[1:], [b""], lines)
        rec = strict_json(lines[0])
        self.assertEqual(rec["binary"], "git")
        self.assertTrue(rec["confined"])

    def test_closed_stderr_only_log_becomes_fd_2(self):
        link = self.sandbox.link("git")
        log = self.sandbox.join("denied.log")
        proc = subprocess.run([link, "push"], env={"AGT_DENIED_LOG": log},
                              preexec_fn=lambda: os.close(2), stdout=subprocess.PIPE, timeout=30)
        self.assertEqual(proc.returncode, 126)
        self.assertEqual(proc.stdout, b"")
        with open(log, "rb") as f:
            data = f.read()
        self.assertEqual(data.count(b"\n"), 1, data)
        self.assertNotIn(b"agt-sandbox", data)

    def test_stderr_reader_gone_still_126(self):
        r, w = os.pipe()
        os.close(r)
        link = self.sandbox.link("scp")
        proc = subprocess.run([link, "a", "b"], stderr=w, timeout=30)
        os.close(w)
        self.assertEqual(proc.returncode, 126)  # not killed by SIGPIPE

    def test_log_failure_and_closed_stderr_still_126(self):
        link = self.sandbox.link("scp")
        proc = subprocess.run([link], env={"AGT_DENIED_LOG": "/proc/version"},
                              preexec_fn=lambda: os.close(2), timeout=30)
        self.assertEqual(proc.returncode, 126)

    def test_kernel_refuses_the_filter_still_denies_and_says_so(self):
        link = self.sandbox.link("aws")
        log = self.sandbox.join("denied.log")
        proc = subprocess.run([EXEC_SECCOMP_REFUSED, link, "s3", "ls"], capture_output=True,
                              env={"AGT_DENIED_LOG": log}, timeout=30)
        d = Denial(proc)
        rec = self.assertValidDenial(d, "aws")
        self.assertFalse(rec["confined"])
        self.assertEqual(rec["argv"], ["s3", "ls"])
        with open(log, "rb") as f:
            self.assertEqual(f.read(), d.record_line + b"\n")


class SelfConfinement(ShimTestCase):
    """Point 7, seen from outside; the kernel-level checks of the same filter
    are in shim/confine_test.cc (fork/exec/unlisted calls fail with EPERM)."""

    # No socket() or connect(): the collector's socket is connected before
    # the filter.
    ALLOWED = {"write", "openat", "fstat", "close", "exit_group",
               "setsockopt", "recvfrom", "clock_gettime"}

    def test_real_runs_are_confined(self):
        d = run(["helm", "install"], executable=self.sandbox.link("helm"))
        self.assertTrue(self.assertValidDenial(d, "helm")["confined"])

    def test_after_the_filter_only_allowed_calls_happen_and_all_succeed(self):
        link = self.sandbox.link("docker")
        log = self.sandbox.join("denied.log")
        trace = self.sandbox.join("trace")
        # A peer that refuses the record: the whole socket exchange and then
        # the log's append both run.
        peer = SeqpacketPeer(self.sandbox.join("denied.sock"), "nak")
        self.addCleanup(peer.close)
        proc = subprocess.run(strace_argv(trace, follow=False) + [link, "run", "x"], capture_output=True,
                              env={"AGT_DENIED_LOG": log, "AGT_DENIED_SOCKET": peer.path}, timeout=60)
        self.assertEqual(proc.returncode, 126)
        with open(trace) as f:
            calls = [l for l in f.read().splitlines() if l and not l.startswith("+++")]
        nnp = [i for i, l in enumerate(calls) if l.startswith("prctl(PR_SET_NO_NEW_PRIVS")]
        filt = [i for i, l in enumerate(calls) if l.startswith("prctl(PR_SET_SECCOMP")]
        self.assertEqual(len(nnp), 1, calls)
        self.assertEqual(len(filt), 1, calls)
        self.assertLess(nnp[0], filt[0])
        self.assertRegex(calls[filt[0]], r"= 0$")
        after = calls[filt[0] + 1:]
        self.assertTrue(after, calls)
        for line in after:
            name = re.match(r"^(\w+)\(", line).group(1)
            self.assertIn(name, self.ALLOWED, line)
            self.assertNotIn("EPERM", line)
        self.assertTrue(any(l.startswith("openat(") for l in after))
        self.assertTrue(any(l.startswith("recvfrom(") for l in after))
        # nothing before the filter touched the environment's log path; its
        # socket path is the one value used before it, by connect() alone
        self.assertFalse(any(log in l for l in calls[:filt[0]]))
        before = calls[:filt[0]]
        self.assertEqual([l for l in before if peer.path in l and not l.startswith("execve(")],
                         [l for l in before if l.startswith("connect(")], before)
        self.assertEqual(len([l for l in before if l.startswith("connect(")]), 1, before)
