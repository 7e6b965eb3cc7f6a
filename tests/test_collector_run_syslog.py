"""agt-collector run: every entry also goes to a REAL rsyslogd (private socket)."""
import os
import shutil
import subprocess
import time
import unittest

from forward_support import stop_daemon
from run_harness import RunHarness

RSYSLOGD = shutil.which("rsyslogd") or "/usr/sbin/rsyslogd"


class PrivateRsyslog:
    """rsyslogd in the foreground on its own unix socket, writing to a file."""

    def __init__(self, testcase, directory):
        self.t = testcase
        self.dir = directory
        self.socket = os.path.join(directory, "log.sock")
        self.output = os.path.join(directory, "syslog.out")
        self.conf = os.path.join(directory, "rsyslog.conf")
        self.pidfile = os.path.join(directory, "rsyslogd.pid")
        work = os.path.join(directory, "work")
        os.makedirs(work, exist_ok=True)
        with open(self.conf, "w") as f:
            f.write('global(workDirectory="%s")\n' % work)
            f.write('module(load="imuxsock" SysSock.Use="off")\n')
            # The collector's notices are RFC 5424: imuxsock's special
            # parser knows only the classic local format (agt-collector(1)).
            f.write('input(type="imuxsock" Socket="%s" RateLimit.Interval="0" '
                    'UseSpecialParser="off" ParseHostname="on")\n' % self.socket)
            f.write('*.* action(type="omfile" file="%s" '
                    'template="RSYSLOG_SyslogProtocol23Format")\n' % self.output)
        self.proc = None
        testcase.addCleanup(self.stop)

    def start(self):
        if not os.access(RSYSLOGD, os.X_OK):
            self.t.fail("rsyslogd not installed (scripts/setup installs rsyslog)")
        if os.path.exists(self.socket):
            os.unlink(self.socket)
        self.proc = subprocess.Popen([RSYSLOGD, "-f", self.conf, "-i", self.pidfile, "-n"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 15
        while not os.path.exists(self.socket):
            if self.proc.poll() is not None:
                self.t.fail("rsyslogd exited: %s" % self.proc.stderr.read())
            if time.monotonic() > deadline:
                self.t.fail("rsyslogd did not create its socket")
            time.sleep(0.02)

    def stop(self):
        stop_daemon(self.proc, timeout=10)
        self.proc = None

    def text(self):
        if not os.path.exists(self.output):
            return ""
        with open(self.output, errors="replace") as f:
            return f.read()

    def wait_for(self, needles, timeout=15):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.text()
            if all(n in text for n in needles):
                return text
            time.sleep(0.05)
        self.t.fail("syslog output lacks %s:\n%s" % (needles, self.text()))


class RunSyslogTest(unittest.TestCase):
    def test_each_entry_reaches_rsyslog_once(self):
        h = RunHarness(self)
        rs = PrivateRsyslog(self, h.dir)
        rs.start()
        h.add_sandbox("sb-1")
        h.start(syslog=rs.socket)
        for name in ("curl", "wget", "git"):
            h.deny("sb-1", name=name)
        h.wait_expected()
        ids = [e["entry_id"] for e in h.entries()]
        text = rs.wait_for(["entry_id=" + i for i in ids])
        for e in h.entries():
            self.assertEqual(text.count("entry_id=" + e["entry_id"]), 1, text)
            line = [l for l in text.splitlines() if e["entry_id"] in l][0]
            # rsyslog parsed it as RFC 5424: APP-NAME, PROCID, MSGID and the
            # structured data of the forwarded messages come through.
            self.assertIn(" agt-collector %d command_denied [agt@32473 entry_id=\"%s\" "
                          "sandbox_id=\"sb-1\" resource=\"%s\" outcome=\"denied\" "
                          "previous_hash=\"%s\" content_hash=\"%s\"]"
                          % (h.proc.pid, e["entry_id"], e["resource"], e["previous_hash"],
                             e["content_hash"]), line)
            self.assertIn("sandbox_id=sb-1 binary=%s" % e["resource"], line)
        h.stop()
        h.assert_exact()

    def running_with_one_notice(self):
        """A collector and its rsyslogd, one notice through."""
        h = RunHarness(self)
        rs = PrivateRsyslog(self, h.dir)
        rs.start()
        h.add_sandbox("sb-1")
        h.start(syslog=rs.socket)
        h.deny_and_wait("sb-1")
        rs.wait_for(["entry_id=" + h.entries()[0]["entry_id"]])
        return h, rs

    def test_syslog_down_loses_nothing_in_the_audit_file_and_is_reported(self):
        h, rs = self.running_with_one_notice()
        rs.stop()
        h.deny_and_wait("sb-1", times=2)
        deadline = time.monotonic() + 10
        while "syslog" not in h.stderr() and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertIn("agt-collector: warning: run: syslog " + rs.socket, h.stderr())
        self.assertIn("dropped", h.stderr())
        # Back again: the sender reconnects (at most once a second). The
        # subject is that pace, so this waits past it rather than on a sign.
        rs.start()
        time.sleep(1.2)
        h.deny_and_wait("sb-1")
        rs.wait_for(["entry_id=" + h.entries()[-1]["entry_id"]])
        h.stop()
        h.assert_exact()

    def test_the_first_notice_after_a_syslog_restart_arrives(self):
        h, rs = self.running_with_one_notice()
        # Restarted between two notices: the collector's socket still points
        # at the old one. The next notice must find the new one, not be the
        # failed send that discovers it.
        rs.stop()
        rs.start()
        h.deny_and_wait("sb-1")
        rs.wait_for(["entry_id=" + h.entries()[-1]["entry_id"]])
        h.stop()
        self.assertIn(" 0 syslog messages dropped", h.stderr())
        h.assert_exact()


if __name__ == "__main__":
    unittest.main()
