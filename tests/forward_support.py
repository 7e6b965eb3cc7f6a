"""Real receivers for the forwarding tests: certificates made here with the
openssl tool, and rsyslogd started on loopback with the shipped receiver
configuration (deploy/rsyslog/agt-receiver.conf), its paths and port
rewritten to a temporary directory."""
import os
import shutil
import signal
import socket
import subprocess
import time

from build_paths import TOP

RSYSLOGD = shutil.which("rsyslogd") or "/usr/sbin/rsyslogd"
RECEIVER_CONF = os.path.join(TOP, "deploy", "rsyslog", "agt-receiver.conf")
SYSLOG_TLS_CONF = os.path.join(TOP, "deploy", "rsyslog", "agt-receiver-syslog-tls.conf")
CLIENT_NAME = "agt-collector.example.org"  # the shipped permittedPeer


def syslog_hostname():
    """The HOSTNAME the collector puts in its messages (the receiver's
    per-host directory)."""
    return socket.gethostname()


def child_pids(pid):
    """The children of `pid` (the forwarders `run` supervises)."""
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(p) for p in f.read().split()]
    except OSError:
        return []


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _openssl(*args, cwd):
    subprocess.run(["openssl"] + list(args), cwd=cwd, check=True, capture_output=True,
                   timeout=60)


def stop_daemon(proc, timeout=15):
    """SIGTERM to a daemon started with stderr=PIPE (SIGKILL if it lingers)."""
    if proc is None:
        return
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    proc.stderr.close()


def make_pki(directory, receiver_name="localhost"):
    """A CA, a receiver certificate for receiver_name and a client
    certificate for CLIENT_NAME; returns a dict of their paths."""
    os.makedirs(directory, exist_ok=True)
    _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
             "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=agt test CA",
             cwd=directory)
    paths = {"ca": os.path.join(directory, "ca.pem")}
    for role, name in (("receiver", receiver_name), ("client", CLIENT_NAME)):
        _openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                 "-keyout", role + ".key", "-out", role + ".csr", "-subj", "/CN=" + name,
                 cwd=directory)
        with open(os.path.join(directory, role + ".ext"), "w") as f:
            f.write("subjectAltName=DNS:%s\n" % name)
        _openssl("x509", "-req", "-in", role + ".csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                 "-CAcreateserial", "-out", role + ".pem", "-days", "2",
                 "-extfile", role + ".ext", cwd=directory)
        paths[role + "_cert"] = os.path.join(directory, role + ".pem")
        paths[role + "_key"] = os.path.join(directory, role + ".key")
    return paths


class Receiver:
    """rsyslogd in the foreground with the shipped receiver configuration."""

    def __init__(self, testcase, directory, pki, port=None, syslog_port=None, extra=""):
        """syslog_port: also load the syslog-over-TLS input, on that port."""
        self.t = testcase
        self.dir = directory
        self.port = port or free_port()
        self.syslog_port = syslog_port
        self.out = os.path.join(directory, "remote")
        self.conf = os.path.join(directory, "rsyslog.conf")
        self.pidfile = os.path.join(directory, "rsyslogd.pid")
        work = os.path.join(directory, "work")
        os.makedirs(work, exist_ok=True)
        with open(RECEIVER_CONF) as f:
            text = f.read()
        if syslog_port:
            with open(SYSLOG_TLS_CONF) as f:
                text += f.read()
            text = text.replace('port="6514"', 'port="%d"' % syslog_port)
        for old, new in (("/var/log/agt-remote", self.out),
                         ("/etc/agt-receiver/ca.pem", pki["ca"]),
                         ("/etc/agt-receiver/receiver.pem", pki["receiver_cert"]),
                         ("/etc/agt-receiver/receiver.key", pki["receiver_key"]),
                         ('port="2514"', 'port="%d"' % self.port)):
            testcase.assertIn(old, text, "the shipped receiver config changed shape")
            text = text.replace(old, new)
        with open(self.conf, "w") as f:
            f.write('global(workDirectory="%s")\n' % work + text + extra)
        self.proc = None
        testcase.addCleanup(self.stop)

    def file_for(self, host):
        return os.path.join(self.out, host, "audit.jsonl")

    def start(self):
        if not os.access(RSYSLOGD, os.X_OK):
            self.t.fail("rsyslogd not installed (scripts/setup installs rsyslog)")
        self.proc = subprocess.Popen([RSYSLOGD, "-f", self.conf, "-i", self.pidfile, "-n"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 20
        while True:
            if self.proc.poll() is not None:
                self.t.fail("rsyslogd exited: %s" % self.proc.stderr.read())
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            if time.monotonic() > deadline:
                self.t.fail("rsyslogd does not listen on %d" % self.port)
            time.sleep(0.05)

    def kill9(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.proc.stderr.close()
        self.proc = None
        if os.path.exists(self.pidfile):
            os.unlink(self.pidfile)

    def stop(self):
        stop_daemon(self.proc)
        self.proc = None
