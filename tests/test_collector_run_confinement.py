"""agt-collector run confines itself once started (collector/self_confine.h):
the real binary under strace sets no_new_privs, applies its Landlock ruleset
and loads its seccomp filter before its loop; then the running collector is
made to try what the confinement must refuse (an exec, a file created
outside its directories, a new stream or TCP socket), by calls injected with
ptrace (syscall_injection.py; gdb's own calls fail on CPUs with AMX), and
the collector goes on working afterwards. The startup line says what is
left open with --forward and --listen, and why."""
import os
import re
import signal
import socket
import subprocess
import tempfile
import unittest

from run_harness import RunHarness
from strace_support import strace_argv
from syscall_injection import execve_call, fork_call, open_call, socket_call, syscalls_in
from test_collector_confinement import assert_confined_before, sanitizer_build

EACCES, EPERM = 13, 1
AF_UNIX, AF_INET, SOCK_STREAM = 1, 2, 1
O_WRONLY_CREAT = 0o101


class RunConfinement(unittest.TestCase):
    def setUp(self):
        self.h = RunHarness(self, name="run-confined", sandboxes=["sb-1"])
        self.outside = tempfile.mkdtemp(prefix="agt-outside-")
        self.addCleanup(lambda: subprocess.run(["rm", "-rf", self.outside]))
        # Another daemon's socket, as the Docker engine's would be.
        self.other = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.addCleanup(self.other.close)
        self.other_path = os.path.join(self.outside, "other.sock")
        self.other.bind(self.other_path)
        self.other.listen(1)
        self.other.setblocking(False)

    def startup_line(self):
        pattern = r"(confined|not fully confined): .*"
        self.h.wait_until(lambda: re.search(pattern, self.h.stderr()), "the confinement line")
        return re.search(pattern, self.h.stderr()).group(0)

    def assert_still_works(self):
        self.h.deny_and_wait("sb-1")
        self.h.stop()
        self.assertRaises(BlockingIOError, self.other.accept)

    def test_run_confines_itself_before_its_loop(self):
        with tempfile.NamedTemporaryFile("r", suffix=".strace") as trace:
            self.h.start(wrap=strace_argv(trace.name, "trace=prctl,seccomp,landlock_restrict_self,poll"))
            self.h.deny_and_wait("sb-1")
            # SIGTERM to the collector beneath strace, which then exits with it.
            with open("/proc/%d/task/%d/children" % (self.h.proc.pid, self.h.proc.pid)) as f:
                os.kill(int(f.read().split()[0]), signal.SIGTERM)
            self.assertEqual(self.h.proc.wait(timeout=20), 0, self.h.stderr())
            lines = trace.read().splitlines()
        assert_confined_before(self, lines, r"poll\(")
        self.assertRegex(self.h.stderr(), r"(?m)^agt-collector: run: confined: no_new_privs, "
                                          r".*Landlock ABI \d+$")

    def test_a_running_collector_cannot_exec_write_outside_or_connect(self):
        proc = self.h.start()
        self.startup_line()  # confined once it is out: before, nothing is refused yet
        inside = os.path.join(self.h.base, "sb-1", "made-by-the-collector")
        results = syscalls_in(proc.pid, [
            open_call(os.path.join(self.outside, "new"), O_WRONLY_CREAT, 0o600),
            open_call(inside, O_WRONLY_CREAT, 0o600),
            execve_call("/bin/true"),
            socket_call(AF_UNIX, SOCK_STREAM),
            socket_call(AF_INET, SOCK_STREAM),
        ])
        self.assertEqual(results[0], (-1, EACCES))  # Landlock: not a granted directory
        self.assertFalse(os.path.exists(os.path.join(self.outside, "new")))
        self.assertGreaterEqual(results[1][0], 0)  # a sandbox tree is granted
        self.assertTrue(os.path.exists(inside))
        # Seccomp refuses exec outright; a sanitizer build has Landlock's EACCES.
        self.assertEqual(results[2], (-1, EACCES if sanitizer_build() else EPERM))
        if not sanitizer_build():
            # No stream socket, so no connection to another daemon's socket.
            self.assertEqual(results[3], (-1, EPERM))
            self.assertEqual(results[4], (-1, EPERM))
        self.assert_still_works()

    def test_with_forwarders_exec_is_its_own_binary_only(self):
        proc = self.h.start("--forward", "syslog+tcp://127.0.0.1:9")
        self.assertIn("exec of the collector's own binary", self.startup_line())
        results = syscalls_in(proc.pid, [
            execve_call("/bin/true"),
            open_call(os.path.join(self.outside, "new"), O_WRONLY_CREAT, 0o600),
        ])
        self.assertEqual(results[0], (-1, EACCES))  # Landlock: no EXECUTE right there
        self.assertEqual(results[1], (-1, EACCES))
        self.assert_still_works()

    def test_with_listen_there_is_no_landlock_and_the_filter_still_holds(self):
        sock = os.path.join(self.h.dir, "denied.sock")
        proc = self.h.start("--listen", sock, "--shim-sha256", "0" * 64)
        self.assertIn("no Landlock ruleset: --listen reads each peer's /proc/PID/exe",
                      self.startup_line())
        if sanitizer_build():
            self.assert_still_works()
            return
        # Its sync thread may clone a thread, never a process.
        results = syscalls_in(proc.pid, [
            execve_call("/bin/true"),
            socket_call(AF_UNIX, SOCK_STREAM),
            socket_call(AF_INET, SOCK_STREAM),
            fork_call(),
        ])
        self.assertEqual(results, [(-1, EPERM)] * 4)
        self.assert_still_works()


if __name__ == "__main__":
    unittest.main()
