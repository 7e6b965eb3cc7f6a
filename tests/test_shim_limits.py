"""agt-deny-shim under resource limits and a short append (issue: no quiet denial).

Each RLIMIT is set with prlimit(1) on the static shim exec'd through a real
symlink. Wherever the kernel lets a program run at all (a static no-op built
in the same run is the yardstick), the shim exits 126 with its record; where
the kernel kills the exec itself, nothing at all was written.
"""
import os
import resource
import signal
import subprocess

from build_paths import COLLECTOR, TOP
from shim_support import ShimTestCase, built_helper, run, strict_json

def static_noop():
    """A static musl no-op (exit 126) built like the shim."""
    return built_helper("noop", ("noop.cc", "int main() { return 126; }\n"), lambda src, out, work: [
        os.path.join(TOP, "shim", "musl-cxx"), os.path.join(work, "scratch"), os.path.join(work, "noop.d"),
        out, "--", src])


class ResourceLimits(ShimTestCase):
    # Rule 11's deepest nesting: a quoted name, a shell in it, its command string.
    DEEPEST = "os.system('sh -c \"sudo -u root curl -u me:pw x\"')"
    # Code in a command string running an argv list: rule 14 feeds the
    # list's elements to a redactor of their own, from inside rule 11's.
    DEEPEST_LIST = "python3 -c \"subprocess.run(['curl', '-u', 'me:pw', 'x'])\""

    def limited(self, limit, argv=None, env=None, no_aslr=False):
        log = self.sandbox.join("denied.log")
        argv = argv or ["curl", "-u", "me:pw", "https://example.com/x"]
        cmd = ["prlimit", limit, self.sandbox.link(argv[0])] + argv[1:]
        if no_aslr:
            cmd = ["setarch", "-R"] + cmd
        full_env = {"AGT_DENIED_LOG": log}
        full_env.update(env or {})
        proc = subprocess.run(cmd, env=full_env, capture_output=True, timeout=60)
        logged = b""
        if os.path.exists(log):
            with open(log, "rb") as f:
                logged = f.read()
            os.unlink(log)
        return proc, logged

    def assertDeniedWithRecord(self, proc, logged, binary="curl"):
        self.assertEqual(proc.returncode, 126, proc.stderr[-300:])
        record = strict_json(proc.stderr.split(b"\n")[0])
        self.assertEqual(record["binary"], binary)
        self.assertEqual(logged, proc.stderr.split(b"\n")[0] + b"\n")
        self.assertNotIn(b"me:pw", proc.stderr)

    def assertKilledBeforeAnyWrite(self, proc, logged):
        self.assertEqual(proc.returncode, -signal.SIGSEGV, proc.stderr[-300:])
        self.assertEqual(proc.stderr, b"")
        self.assertEqual(logged, b"")

    def test_stack_12_kib_with_address_randomisation(self):
        # The kernel's random stack offset takes up to 8 KiB of the limit, so
        # 12 KiB leaves the shim ~4 KiB: twenty runs, every one a denial.
        for _ in range(20):
            proc, logged = self.limited("--stack=12288")
            self.assertDeniedWithRecord(proc, logged)

    def test_stack_12_kib_with_the_deepest_command_line(self):
        # Rule 11 nests a redactor per quoted command line: at its deepest
        # (a quoted name, a shell, its quoted command) the record still fits.
        argv = ["sh", "-c", self.DEEPEST]
        for _ in range(20):
            proc, logged = self.limited("--stack=12288", argv=argv)
            self.assertDeniedWithRecord(proc, logged, binary="sh")
            self.assertIn(b"curl -u me:[REDACTED] x", logged)

    def test_stack_12_kib_with_argv0_the_deepest_command_line(self):
        # argv[0] set to a command line goes through rule 11 too, with a
        # redactor of its own on the stack.
        log = self.sandbox.join("denied.log")
        limit = lambda: resource.setrlimit(resource.RLIMIT_STACK, (12288, 12288))
        for _ in range(20):
            proc = subprocess.run([self.DEEPEST, "x"], executable=self.sandbox.link("curl"),
                                  env={"AGT_DENIED_LOG": log}, preexec_fn=limit,
                                  capture_output=True, timeout=60)
            with open(log, "rb") as f:
                logged = f.read()
            os.unlink(log)
            self.assertDeniedWithRecord(proc, logged)
            self.assertIn(b"curl -u me:[REDACTED] x", logged)

    def test_stack_wherever_a_noop_runs(self):
        # Without randomisation the outcome is deterministic: at every limit
        # where the static no-op runs, the shim denies with its record.
        noop = static_noop()
        checked = 0
        for kib in range(2, 17):
            limit = "--stack=%d" % (kib * 1024)
            base = subprocess.run(["setarch", "-R", "prlimit", limit, noop], capture_output=True, timeout=30)
            proc, logged = self.limited(limit, no_aslr=True)
            nested, nested_logged = self.limited(limit, argv=["sh", "-c", self.DEEPEST], no_aslr=True)
            listed, listed_logged = self.limited(limit, argv=["sh", "-c", self.DEEPEST_LIST],
                                                 no_aslr=True)
            if base.returncode == 126:
                self.assertDeniedWithRecord(proc, logged)
                self.assertDeniedWithRecord(nested, nested_logged, binary="sh")
                self.assertDeniedWithRecord(listed, listed_logged, binary="sh")
                self.assertIn(b"'me:[REDACTED]'", listed_logged)
                checked += 1
            elif proc.returncode != 126:
                self.assertKilledBeforeAnyWrite(proc, logged)
        self.assertGreaterEqual(checked, 10)

    def test_address_space_kernel_kills_the_exec_or_the_shim_records(self):
        # RLIMIT_AS of 128 KiB: the kernel cannot even set up a no-op's stack.
        noop = static_noop()
        base = subprocess.run(["prlimit", "--as=131072", noop], capture_output=True, timeout=30)
        self.assertEqual(base.returncode, -signal.SIGSEGV)
        proc, logged = self.limited("--as=131072")
        self.assertKilledBeforeAnyWrite(proc, logged)
        # From there up, page by page: killed by the exec with nothing
        # written, until the shim's own pages fit; from then on a record.
        first_ok = None
        for kib in range(128, 512, 4):
            proc, logged = self.limited("--as=%d" % (kib * 1024))
            if proc.returncode == 126:
                self.assertDeniedWithRecord(proc, logged)
                first_ok = first_ok or kib
            else:
                self.assertIsNone(first_ok, "killed at %d KiB after a denial at %s KiB" % (kib, first_ok))
                self.assertKilledBeforeAnyWrite(proc, logged)
        self.assertIsNotNone(first_ok)

    def test_cpu_one_second_with_the_worst_argv(self):
        # 1 s of CPU (the least RLIMIT_CPU can say) against 15 crafted 128 KiB
        # arguments: the linear redaction finishes long before.
        units = ["sk-", "eyJ-", "a:=", "\"'", "a=", "Bearer ", "://", "-----BEGIN ", "x@a:", "hooks.a/",
                 "=A:", "\"password\":", "pas=", "AKIA", "-u"]
        n = 128 * 1024 - 1
        args = [(u * (n // len(u) + 1))[:n] for u in units]
        proc, logged = self.limited("--cpu=1", argv=["curl"] + args)
        self.assertDeniedWithRecord(proc, logged)

    def test_file_size_limit_reached_stderr_keeps_the_record(self):
        log = self.sandbox.join("denied.log")
        with open(log, "wb") as f:
            f.write(b"x" * 100 + b"\n")
        proc = subprocess.run(["prlimit", "--fsize=101", self.sandbox.link("curl"), "x"],
                              env={"AGT_DENIED_LOG": log}, capture_output=True, timeout=30)
        self.assertEqual(proc.returncode, 126)  # SIGXFSZ is ignored: EFBIG, not death
        self.assertIsNotNone(strict_json(proc.stderr.split(b"\n")[0]))
        self.assertIn(b"File too large", proc.stderr)
        with open(log, "rb") as f:
            self.assertEqual(f.read(), b"x" * 100 + b"\n")

    def test_file_size_zero(self):
        proc, logged = self.limited("--fsize=0")
        self.assertEqual(proc.returncode, 126)
        self.assertIsNotNone(strict_json(proc.stderr.split(b"\n")[0]))
        self.assertIn(b"File too large", proc.stderr)
        self.assertEqual(logged, b"")

    def test_no_file_descriptors_left(self):
        for limit in ("--nofile=3", "--nofile=0"):
            proc, logged = self.limited(limit)
            self.assertEqual(proc.returncode, 126, limit)
            self.assertIsNotNone(strict_json(proc.stderr.split(b"\n")[0]))
            self.assertIn(b"No file descriptors available", proc.stderr)
            self.assertEqual(logged, b"")


class ShortAppend(ShimTestCase):

    def test_a_cut_record_costs_no_later_record(self):
        log = self.sandbox.join("denied.log")
        first = run(["curl", "https://example.com/first"], executable=self.sandbox.link("curl"),
                    env={"AGT_DENIED_LOG": log})
        self.assertEqual(first.returncode, 126)
        size = os.path.getsize(log)
        # The second denial meets a file-size limit 40 bytes on: a short write.
        proc = subprocess.run(["prlimit", "--fsize=%d" % (size + 40), self.sandbox.link("curl"), "second"],
                              env={"AGT_DENIED_LOG": log}, capture_output=True, timeout=30)
        self.assertEqual(proc.returncode, 126)
        self.assertIn(b"short write (40 of", proc.stderr)
        third = run(["curl", "third"], executable=self.sandbox.link("curl"), env={"AGT_DENIED_LOG": log})
        self.assertEqual(third.returncode, 126)
        with open(log, "rb") as f:
            lines = f.read().split(b"\n")
        self.assertEqual(lines[-1], b"")
        self.assertEqual(len(lines), 4, lines)
        self.assertEqual(lines[0], first.record_line)
        self.assertEqual(len(lines[1]), 40)  # the fragment, ended by the next denial's newline
        self.assertEqual(lines[2], third.record_line)
        # The collector names the fragment and accepts the records around it.
        v = subprocess.run([COLLECTOR, "validate", log], capture_output=True, timeout=30)
        out = v.stderr.decode() + v.stdout.decode()
        self.assertIn("%s:2: a cut record (the line ends inside the JSON object after 40 bytes" % log, out)
        self.assertIn("3 lines, 2 valid, 1 rejected", out)

    def test_a_log_ending_without_newline_gets_one_before_the_record(self):
        log = self.sandbox.join("denied.log")
        with open(log, "wb") as f:
            f.write(b"planted text without newline")
        d = run(["wget", "x"], executable=self.sandbox.link("wget"), env={"AGT_DENIED_LOG": log})
        self.assertEqual(d.returncode, 126)
        with open(log, "rb") as f:
            self.assertEqual(f.read(), b"planted text without newline\n" + d.record_line + b"\n")
