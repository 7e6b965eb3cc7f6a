"""agt-deny-shim issue points 1-3: who was denied, the record, the one stderr write."""
import os
import socket
import subprocess
import time

from shim_support import (EXEC_EMPTY_ARGV, SHIM, SOCKET_WARNING_PREFIX, WARNING_PREFIX, ShimTestCase, run)
from strace_support import strace_argv


class WhoIsDenied(ShimTestCase):
    """Point 1: the name comes from the exec path (AT_EXECFN) and argv[0]."""

    def test_by_name_through_a_symlink(self):
        link = self.sandbox.link("curl")
        d = run(["curl", "-sSL", "https://example.com/x"], executable=link)
        rec = self.assertValidDenial(d, "curl")
        self.assertEqual(rec["argv"], ["-sSL", "https://example.com/x"])
        self.assertEqual(rec["argv0"], "curl")
        self.assertEqual(rec["path"], link)
        self.assertEqual(rec["argc"], 3)

    def test_by_name_through_path_lookup(self):
        bin_dir = os.path.dirname(self.sandbox.link("wget"))
        d = run(["wget", "-q", "x"], env={"PATH": bin_dir})
        rec = self.assertValidDenial(d, "wget")
        self.assertEqual(rec["path"], os.path.join(bin_dir, "wget"))

    def test_absolute_path_call(self):
        link = self.sandbox.link("kubectl", subdir="usr/local/bin")
        d = run([link, "get", "pods"])
        rec = self.assertValidDenial(d, "kubectl")
        self.assertEqual(rec["argv0"], link)
        self.assertEqual(rec["path"], link)

    def test_relative_path_call(self):
        self.sandbox.link("ssh")
        d = run(["./bin/ssh", "host"], cwd=self.sandbox.path)
        rec = self.assertValidDenial(d, "ssh")
        self.assertEqual(rec["path"], "./bin/ssh")

    def test_spoofed_argv0_is_still_a_denial_of_the_exec_path(self):
        az = self.sandbox.link("az", subdir="usr/bin")
        d = run(["agt-deny-shim", "--help"], executable=az)
        rec = self.assertValidDenial(d, "az")
        self.assertEqual(rec["argv0"], "agt-deny-shim")  # the spoof is visible
        self.assertEqual(rec["path"], az)
        self.assertEqual(rec["argv"], ["--help"])

    def test_spoofed_argv0_with_another_denied_name(self):
        az = self.sandbox.link("az", subdir="usr/bin")
        d = run(["/usr/bin/ls", "-l"], executable=az)
        rec = self.assertValidDenial(d, "az")
        self.assertEqual(rec["argv0"], "/usr/bin/ls")

    def test_through_the_shims_own_path_argv0_names_the_command(self):
        d = run(["/usr/bin/git", "push"], executable=SHIM)
        rec = self.assertValidDenial(d, "git")
        self.assertEqual(rec["path"], SHIM)
        self.assertEqual(rec["argv0"], "/usr/bin/git")

    def test_implausible_name_is_unknown(self):
        d = run(["bad name\x01", "x"], executable=SHIM)
        rec = self.assertValidDenial(d, "unknown")
        self.assertEqual(rec["argv0"], "bad name\x01")

    def test_empty_argv_is_unknown(self):
        link = self.sandbox.link("curl")
        proc = subprocess.run([EXEC_EMPTY_ARGV, link], capture_output=True, timeout=30)
        from shim_support import Denial
        d = Denial(proc)
        rec = self.assertValidDenial(d, "unknown")
        # Linux (>= 5.18) turns an empty argv into {""}: argc 1, argv0 "".
        self.assertLessEqual(rec["argc"], 1)
        self.assertEqual(rec["argv"], [])
        self.assertEqual(rec.get("argv0", ""), "")
        self.assertEqual(rec["path"], link)


class TheRecord(ShimTestCase):
    """Point 2: upstream keys, enrichment keys, valid UTF-8 JSON."""

    def test_identity_time_and_host(self):
        link = self.sandbox.link("terraform")
        before = time.time_ns()
        proc = subprocess.Popen([link, "apply"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env={})
        out, err = proc.communicate(timeout=30)
        after = time.time_ns()
        from shim_support import Denial
        d = Denial(subprocess.CompletedProcess([], proc.returncode, out, err))
        rec = self.assertValidDenial(d, "terraform")
        self.assertEqual(rec["pid"], proc.pid)
        self.assertEqual(rec["ppid"], os.getpid())
        self.assertEqual(rec["uid"], os.getuid())
        self.assertEqual(rec["gid"], os.getgid())
        self.assertEqual(rec["host"], socket.gethostname())
        self.assertTrue(before - 10**9 <= rec["timestamp_ns"] <= after + 10**9)
        self.assertTrue(rec["confined"])
        self.assertFalse(rec["truncated"])
        self.assertEqual(rec["redactions"], 0)
        self.assertRegex(rec["version"], r"^\d+\.\d+\.\d+$")

    def test_upstream_keys_unchanged(self):
        d = run(["pip", "install", "x"], executable=self.sandbox.link("pip"))
        rec = self.assertValidDenial(d, "pip")
        for key in ("argv", "binary", "event", "issue", "timestamp"):
            self.assertIn(key, rec)
        self.assertEqual(rec["event"], "command_denied")
        self.assertEqual(rec["issue"], 2662)

    def test_hostile_bytes_make_valid_json(self):
        args = [b"quote\"back\\slash", b"ctl\x01\x1b[31m\n\r\t\x7f", b"bad\xff\xfe\xc0\xaf",
                b"ls\xe2\x80\xa8ps\xe2\x80\xa9", b"cut\xe2\x82", "caf\u00e9 \U0001F600".encode()]
        d = run([b"curl"] + args, executable=self.sandbox.link("curl"))
        rec = self.assertValidDenial(d, "curl")
        self.assertEqual(rec["argv"][0], 'quote"back\\slash')
        self.assertEqual(rec["argv"][1], "ctl\x01\x1b[31m\n\r\t\x7f")
        self.assertEqual(rec["argv"][2], "bad\ufffd\ufffd\ufffd\ufffd")
        self.assertEqual(rec["argv"][3], "ls\u2028ps\u2029")
        self.assertEqual(rec["argv"][4], "cut\ufffd\ufffd")
        self.assertEqual(rec["argv"][5], "caf\u00e9 \U0001F600")
        line = d.record_line
        self.assertIn(b"\\u2028", line)
        self.assertIn(b"\\u001b", line)
        self.assertNotIn(b"\n", line)
        self.assertNotIn(b"\xe2\x80\xa8", line)

    def test_overlongs_surrogates_and_out_of_range_never_pass_through(self):
        # Each is invalid UTF-8 that lenient decoders accept: every byte of it
        # becomes U+FFFD, in argv, argv0 and path alike.
        bad = [b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xed\xa0\xbd\xed\xb8\x80",  # surrogates, a CESU pair
               b"\xc0\x80", b"\xc1\xbf", b"\xe0\x80\xaf", b"\xf0\x80\x80\xaf",  # overlongs
               b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xf8\x88\x80\x80\x80"]  # > U+10FFFF
        link = self.sandbox.link("curl", subdir=b"d\xed\xa0\x80".decode("utf-8", "surrogateescape"))
        d = run([b"x\xed\xa0\x80"] + bad, executable=link)
        rec = self.assertValidDenial(d, "curl")
        self.assertEqual(rec["argv"], ["\ufffd" * len(b) for b in bad])
        self.assertEqual(rec["argv0"], "x\ufffd\ufffd\ufffd")
        self.assertTrue(rec["path"].endswith("/d\ufffd\ufffd\ufffd/curl"), rec["path"])
        for b in bad:
            self.assertNotIn(b, d.record_line)


class OneStderrWrite(ShimTestCase):
    """Point 3: ONE write() to stderr holding both lines, <= 4096 bytes."""

    def strace_writes(self, argv, env=None):
        trace = self.sandbox.join("trace")
        proc = subprocess.run(strace_argv(trace, "trace=write", "signal=none", string_limit=0) + argv,
                              capture_output=True, timeout=60,
                              env=env or {})
        with open(trace) as f:
            lines = [l for l in f.read().splitlines() if "write(" in l]
        return proc, lines

    def test_exactly_one_write_to_stderr(self):
        link = self.sandbox.link("ssh")
        # No socket and a log that cannot be opened: both warnings join the
        # same write.
        missing = self.sandbox.join("missing", "denied.log")
        proc, writes = self.strace_writes([link] + ["x" * 600] * 20,
                                          env={"AGT_DENIED_LOG": missing,
                                               "AGT_DENIED_SOCKET": self.sandbox.join("absent.sock")})
        self.assertEqual(proc.returncode, 126)
        to_stderr = [w for w in writes if "write(2," in w]
        self.assertEqual(len(to_stderr), 1, writes)
        self.assertEqual(len(writes), 1, writes)
        # the one write returned the full length of what stderr received
        self.assertTrue(to_stderr[0].rstrip().endswith("= %d" % len(proc.stderr)), to_stderr[0])
        self.assertLessEqual(len(proc.stderr), 4096)
        lines = proc.stderr.split(b"\n")
        self.assertEqual(len(lines), 5, proc.stderr[-800:])
        self.assertTrue(lines[2].startswith(SOCKET_WARNING_PREFIX.encode()), lines[2])
        self.assertTrue(lines[3].startswith(WARNING_PREFIX.encode()), lines[3])

    def test_both_warnings_too_long_for_one_write_take_two_whole_lines(self):
        # The largest record and two long paths exceed one atomic write: the
        # log's warning then gets a write of its own, whole lines in each.
        link = self.sandbox.link("kubectl")
        long_dir = self.sandbox.join("d" * 100)
        # Many short arguments fill the record to within a few bytes of its
        # limit; both paths are cut to their longest in the warnings.
        proc, writes = self.strace_writes([link] + ["x" * 20] * 300,
                                          env={"AGT_DENIED_LOG": os.path.join(long_dir, "l" * 200),
                                               "AGT_DENIED_SOCKET": self.sandbox.join("s" * 200)})
        self.assertEqual(proc.returncode, 126)
        self.assertGreater(len(proc.stderr), 4096, "the case must exceed one write")
        to_stderr = [w for w in writes if "write(2," in w]
        self.assertEqual(len(to_stderr), 2, writes)
        sizes = [int(w.rstrip().rsplit("= ", 1)[1]) for w in to_stderr]
        self.assertEqual(sum(sizes), len(proc.stderr))
        self.assertTrue(all(n <= 4096 for n in sizes), sizes)
        first, second = proc.stderr[:sizes[0]], proc.stderr[sizes[0]:]
        self.assertEqual(first.count(b"\n"), 3)
        self.assertTrue(first.split(b"\n")[2].startswith(SOCKET_WARNING_PREFIX.encode()), first[-400:])
        self.assertTrue(second.startswith(WARNING_PREFIX.encode()), second)
        self.assertEqual(second.count(b"\n"), 1)

    def test_log_and_stderr_are_one_write_each(self):
        link = self.sandbox.link("ssh")
        log = self.sandbox.join("denied.log")
        proc, writes = self.strace_writes([link, "host"], env={"AGT_DENIED_LOG": log})
        self.assertEqual(proc.returncode, 126)
        self.assertEqual(len(writes), 2, writes)
        with open(log, "rb") as f:
            self.assertEqual(f.read(), proc.stderr.split(b"\n")[0] + b"\n")

    def test_long_and_many_arguments_are_cut_and_flagged(self):
        link = self.sandbox.link("curl")
        d = run(["curl", "a" * 5000] + ["arg%d" % i for i in range(3000)], executable=link)
        rec = self.assertValidDenial(d, "curl")
        self.assertTrue(rec["truncated"])
        self.assertEqual(rec["argc"], 3002)
        self.assertEqual(len(rec["argv"][0].encode()), 512)
        self.assertTrue(rec["argv"][0].endswith("...[truncated]"))
        kept = rec["argv"][1:]
        self.assertEqual(kept, ["arg%d" % i for i in range(len(kept))])
        self.assertLess(len(rec["argv"]), 3001)

    def test_short_arguments_are_not_flagged(self):
        d = run(["curl", "a" * 400], executable=self.sandbox.link("curl"))
        rec = self.assertValidDenial(d, "curl")
        self.assertFalse(rec["truncated"])
        self.assertEqual(rec["argv"], ["a" * 400])
