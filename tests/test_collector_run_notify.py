"""run under a service manager: READY=1 on $NOTIFY_SOCKET only once the
initial backlog is in the audit file, WATCHDOG=1 from the main loop when
$WATCHDOG_USEC asks for it, STOPPING=1 on SIGTERM. The test binds the
datagram socket systemd would."""
import os
import signal
import socket
import subprocess
import time
import unittest

from build_paths import COLLECTOR
from collector_support import record
from run_harness import RunHarness

BACKLOG = 3000


class Notify(unittest.TestCase):
    def setUp(self):
        self.h = RunHarness(self, name="notify", sandboxes=("sb-a",))
        self.sock_path = os.path.join(self.h.dir, "notify.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.addCleanup(self.sock.close)
        self.sock.bind(self.sock_path)

    def messages(self, until, timeout=30):
        """Datagrams until one holds `until`; each with the audit file's line
        count at the moment it arrived."""
        got = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                data = self.sock.recv(4096).decode()
            except socket.timeout:
                break
            got.append((data, self.lines()))
            if until in data:
                return got
        self.fail("no %r within %ss; got %r; stderr: %s" % (until, timeout, got, self.h.stderr()))

    def lines(self):
        try:
            with open(self.h.out, "rb") as f:
                return f.read().count(b"\n")
        except FileNotFoundError:
            return 0

    def start(self, **env_extra):
        env = dict(os.environ, NOTIFY_SOCKET=self.sock_path, **env_extra)
        self.h.stderr_file = open(self.h.stderr_path, "ab")
        self.h.proc = subprocess.Popen(
            [COLLECTOR, "run", "--key-file", self.h.key, "--out", self.h.out, "--state-dir",
             self.h.state, "--watch", self.h.pattern, "--syslog-socket", "none",
             "--no-append-only"],
            stdout=subprocess.DEVNULL, stderr=self.h.stderr_file, env=env)

    def test_ready_only_after_the_backlog_is_durable(self):
        with open(self.h.log_path("sb-a"), "w") as f:
            for i in range(BACKLOG):
                f.write(record(pid=i + 1) + "\n")
        self.start()
        got = self.messages("READY=1")
        ready = [n for data, n in got if "READY=1" in data]
        self.assertEqual(ready, [BACKLOG], got)
        self.assertIn("STATUS=1 sandbox(es), %d entries written at start" % BACKLOG, got[-1][0])
        self.assertFalse(any("WATCHDOG=1" in d for d, _ in got))  # not asked for
        self.h.proc.send_signal(signal.SIGTERM)
        self.messages("STOPPING=1")
        self.assertEqual(self.h.proc.wait(timeout=20), 0, self.h.stderr())

    def test_watchdog_is_petted_from_the_main_loop(self):
        self.start(WATCHDOG_USEC="400000")  # a pet at least every 200 ms
        self.messages("READY=1")
        t0 = time.monotonic()
        pets = [d for d, _ in self.messages("WATCHDOG=1", timeout=5)]
        for _ in range(4):
            pets += [d for d, _ in self.messages("WATCHDOG=1", timeout=5)]
        # Five pets in well under the 1 s scan interval's five periods: the
        # loop wakes for the watchdog, not only for its scan.
        self.assertLess(time.monotonic() - t0, 4.0)
        self.assertEqual(sum("WATCHDOG=1" in d for d in pets), 5)
        self.h.proc.send_signal(signal.SIGTERM)
        self.assertEqual(self.h.proc.wait(timeout=20), 0, self.h.stderr())

    def test_a_watchdog_for_another_process_is_not_ours(self):
        self.start(WATCHDOG_USEC="100000", WATCHDOG_PID="1")
        got = self.messages("READY=1")
        time.sleep(0.5)
        self.sock.setblocking(False)
        try:
            later = self.sock.recv(4096).decode()
        except BlockingIOError:
            later = ""
        self.assertNotIn("WATCHDOG=1", later + "".join(d for d, _ in got))
        self.h.proc.send_signal(signal.SIGTERM)
        self.assertEqual(self.h.proc.wait(timeout=20), 0, self.h.stderr())


if __name__ == "__main__":
    unittest.main()
