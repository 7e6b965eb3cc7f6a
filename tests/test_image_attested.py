"""Issue 10, point 6: the hardened image with the real Docker engine and the
real collector (`agt-collector run --listen`, --shim naming the shim built
here, whose bytes the image holds). The collector's socket is bind-mounted
read-only at the in-image path (AGT_DENIED_SOCKET), as the README shows; the
container runs as a sandbox provider runs it (read-only root, no
capabilities, uid 65534, no network).

Agent code that is denied and then erases everything it can write leaves its
attested entry; python sending a perfect record is a forgery; the socket
cannot be removed; a stopped or frozen collector costs a fallback to the log
within the bound, never the record; kill -9 of the collector during denials
loses nothing. Needs Docker and root (the collector reads /proc of the
container's processes): fails without them.
"""
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import collector_upstream_verifier as upstream
from collector_support import run_collector
from image_support import SHIM, TOP, script
from listen_support import ListenCollector

TAG = "agt-deny/sandbox:test-10s-%d" % os.getpid()
SOCKET_IN_IMAGE = "/run/agt/denied.sock"


def sha256_of(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class AttestedInDocker(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        out = script("docker-engine", "start", timeout=300).stdout.strip().splitlines()[-1]
        if not out.startswith("DOCKER_HOST="):
            raise AssertionError("scripts/docker-engine start printed %r" % out)
        cls.env = dict(os.environ, DOCKER_HOST=out.split("=", 1)[1])
        base = script("base-image", env=cls.env).stdout.strip().splitlines()[-1]
        script("build-image", "--base", base, "--tag", TAG, env=cls.env)

    @classmethod
    def tearDownClass(cls):
        if hasattr(cls, "env"):
            subprocess.run(["docker", "rmi", "-f", TAG], capture_output=True, env=cls.env, timeout=300)

    def setUp(self):
        if os.geteuid() != 0:
            self.fail("the collector must run as root to read the container's /proc entries")

    # -- helpers ---------------------------------------------------------

    def docker(self, *args, check=True, timeout=300):
        p = subprocess.run(["docker"] + list(args), capture_output=True, env=self.env, timeout=timeout)
        if check and p.returncode != 0:
            self.fail("docker %s: exit %d\n%s" % (" ".join(args[:4]), p.returncode, p.stderr.decode()[-2000:]))
        return p

    def collector(self):
        return ListenCollector(self, shim=SHIM).start()

    def log_dir(self):
        d = tempfile.mkdtemp(prefix="agt-10s-log.")
        self.addCleanup(shutil.rmtree, d, ignore_errors=True)
        os.chown(d, 65534, 65534)  # the sandbox user writes (and may erase) its log
        os.chmod(d, 0o700)
        return d

    def sandbox(self, collector, logs, prog, timeout=300, security=()):
        """Runs `python3 -c prog` as a sandbox provider does, the collector's
        socket mounted read-only and the log directory writable; returns
        (exit status, the JSON the program printed, stderr, container id).
        `security`: more --security-opt values (a seccomp profile)."""
        cid_dir = tempfile.mkdtemp(prefix="agt-10s-cid.")
        self.addCleanup(shutil.rmtree, cid_dir, ignore_errors=True)
        cid_file = os.path.join(cid_dir, "cid")
        p = self.docker("run", "--rm", "--cidfile", cid_file, "--network", "none", "--read-only",
                        "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
                        *[a for opt in security for a in ("--security-opt", opt)],
                        "--user", "65534:65534",
                        "--tmpfs", "/workspace:uid=65534,gid=65534", "--tmpfs", "/tmp:uid=65534,gid=65534",
                        "--workdir", "/workspace",
                        "-e", "AGT_DENIED_LOG=/var/log/agt/denied.log", "-v", "%s:/var/log/agt" % logs,
                        "-v", "%s:%s:ro" % (collector.socket, SOCKET_IN_IMAGE),
                        TAG, "python3", "-c", prog, check=False, timeout=timeout)
        if p.returncode == 125:
            self.fail("docker run could not start the container: %s" % p.stderr.decode())
        with open(cid_file) as f:
            cid = f.read().strip()
        out = p.stdout.decode()
        result = json.loads(out.splitlines()[-1]) if p.returncode == 0 and out.strip() else None
        return p.returncode, result, p.stderr.decode(), cid

    def read_log(self, logs):
        path = os.path.join(logs, "denied.log")
        if not os.path.exists(path):
            return []
        with open(path, "rb") as f:
            return [json.loads(line) for line in f.read().splitlines() if line]

    def assert_verifies(self, c, count):
        r = run_collector("verify", "--key-file", c.w.key_file, c.out)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("%d entries" % count, r.stdout)
        with open(c.out, encoding="ascii") as f:
            lines = f.read().splitlines()
        self.assertEqual(upstream.verify_lines(lines, c.w.key)[:2], (True, count))

    def assert_attested(self, entry, cid):
        self.assertEqual(entry["event_type"], "command_denied")
        self.assertEqual(entry["sandbox_id"], cid)
        self.assertEqual(entry["data"]["labels"]["sandbox_id"], cid)
        att = entry["data"]["attestation"]
        self.assertIs(att["attested"], True)
        self.assertEqual(att["exe"]["sha256"], sha256_of(SHIM))
        self.assertIn(cid, att["cgroup"])
        self.assertEqual((att["uid"], att["gid"], att["tracer_pid"]), (65534, 65534, 0))
        # The image's shim is mode 0711: not dumpable, no other process of
        # the sandbox user could rewrite it.
        self.assertIs(att["memory_protected"], True)

    # -- the tests -------------------------------------------------------

    def test_the_image_names_the_socket(self):
        p = self.docker("image", "inspect", "--format", "{{json .Config.Env}}", TAG)
        self.assertIn("AGT_DENIED_SOCKET=" + SOCKET_IN_IMAGE, json.loads(p.stdout))

    def test_the_readme_shows_the_mount_and_the_collector_flags(self):
        with open(os.path.join(TOP, "README.md")) as f:
            readme = f.read()
        self.assertIn("-v /run/agt-deny/denied.sock:%s:ro" % SOCKET_IN_IMAGE, readme)
        self.assertIn("--listen /run/agt-deny/denied.sock --shim ", readme)
        with open(os.path.join(TOP, "dockerfiles", "Dockerfile.sandbox")) as f:
            self.assertIn("ENV AGT_DENIED_SOCKET=" + SOCKET_IN_IMAGE, f.read())

    def test_a_denial_survives_the_agent_erasing_everything_it_can_write(self):
        c = self.collector()
        logs = self.log_dir()
        prog = r'''
import errno, json, os, subprocess
out = {}
# Denied, with stderr thrown away: nothing of it reaches the caller.
out["curl"] = subprocess.run(["curl", "-sSL", "https://example.com/attested"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
# The variable dropped from the environment: the built-in default is the same socket.
env = {k: v for k, v in os.environ.items() if k != "AGT_DENIED_SOCKET"}
out["wget"] = subprocess.run(["wget", "-q", "https://example.com/no-variable"], env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
# Then it erases what it can: overwrite, truncate, unlink every file it can write.
erased = []
for top in ("/var/log/agt", "/tmp", "/workspace", "/run/agt"):
    for root, dirs, files in os.walk(top, topdown=False):
        for name in files:
            p = os.path.join(root, name)
            try:
                with open(p, "w") as f:
                    f.write('{"event":"command_denied","binary":"ls"}\n')
                os.unlink(p)
                erased.append(p)
            except OSError:
                pass
# A planted log of its own, then removed too.
with open("/var/log/agt/denied.log", "w") as f:
    f.write('{"event":"command_denied","binary":"ls"}\n')
os.unlink("/var/log/agt/denied.log")
erased.append("planted")
try:
    os.unlink("/run/agt/denied.sock")
    out["unlink_socket"] = "removed"
except OSError as e:
    out["unlink_socket"] = errno.errorcode[e.errno]
out["erased"] = erased
print(json.dumps(out))
'''
        code, result, err, cid = self.sandbox(c, logs, prog)
        self.assertEqual(code, 0, err)
        self.assertEqual((result["curl"], result["wget"]), (126, 126))
        self.assertIn(result["unlink_socket"], ("EROFS", "EBUSY"))
        self.assertEqual(os.listdir(logs), [])  # nothing left on the sandbox's side
        self.assertEqual(c.stop(), 0)
        entries = c.entries()
        self.assertEqual([e["data"]["binary"] for e in entries], ["curl", "wget"])
        for e in entries:
            self.assert_attested(e, cid)
        self.assertEqual(entries[0]["data"]["argv"], ["-sSL", "https://example.com/attested"])
        self.assertEqual(entries[1]["data"]["argv"], ["-q", "https://example.com/no-variable"])
        self.assert_verifies(c, 2)

    def test_the_agent_cannot_rewrite_a_denials_memory(self):
        # tests/memory_rewrite.py as the agent: PTRACE_TRACEME, exec of the
        # denied curl, detach at the exec stop, then /proc/PID/mem. The
        # image's shim is unreadable to uid 65534, so the kernel made the
        # denial non-dumpable at exec and the rewrite is refused.
        with open(os.path.join(TOP, "tests", "memory_rewrite.py")) as f:
            attacker = f.read()
        prog = ("import sys\nsys.argv = ['memory_rewrite', '/usr/local/sandbox-bin/curl', "
                "'rewritten', 'FORGED!!!', 'https://example.com/rewritten']\n" + attacker)
        c = self.collector()
        rc, result, err, cid = self.sandbox(c, self.log_dir(), prog)
        self.assertEqual(rc, 0, err)
        self.assertEqual(result, {"patched": False, "refused": "EACCES", "tracer_pid": 0,
                                  "status": 126})
        self.assertEqual(c.stop(), 0)
        (e,) = c.entries()
        self.assert_attested(e, cid)
        self.assertEqual(e["data"]["argv"], ["https://example.com/rewritten"])

    # What the agent tries against the shim from before its exec, and the
    # denial itself: PTRACE_TRACEME, a seccomp filter without and with a
    # user-notification listener (each in a child), curl.
    PRE_EXEC_TRIES = r"""
import ctypes, json, os, subprocess
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long

def in_child(fn):
    pid = os.fork()
    if pid == 0:
        os._exit(0 if fn() >= 0 else ctypes.get_errno())
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])

class Insn(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte),
                ("k", ctypes.c_uint)]
class Prog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(Insn))]

def load_filter(flags):
    allow = (Insn * 1)(Insn(0x06, 0, 0, 0x7fff0000))  # BPF_RET|BPF_K SECCOMP_RET_ALLOW
    prog = Prog(1, allow)
    libc.prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
    # seccomp(SECCOMP_SET_MODE_FILTER, flags, &prog): 317 on x86-64
    return libc.syscall(ctypes.c_long(317), ctypes.c_long(1), ctypes.c_long(flags),
                        ctypes.byref(prog))

r = subprocess.run(["curl", "https://example.com/profiled"], capture_output=True, text=True)
print(json.dumps({
    "traceme": in_child(lambda: libc.ptrace(0, 0, None, None)),
    "filter": in_child(lambda: load_filter(0)),
    "listener": in_child(lambda: load_filter(8)),  # SECCOMP_FILTER_FLAG_NEW_LISTENER
    "curl": r.returncode,
    "confined": json.loads(r.stderr.splitlines()[0])["confined"],
}))
"""

    def test_the_sandbox_profile_refuses_a_tracer_and_a_notification_listener(self):
        # The engine's default profile lets the agent do both (errno 0)...
        c = self.collector()
        rc, default, err, _ = self.sandbox(c, self.log_dir(), self.PRE_EXEC_TRIES)
        self.assertEqual(rc, 0, err)
        self.assertEqual(default, {"traceme": 0, "filter": 0, "listener": 0, "curl": 126,
                                   "confined": True})
        # ...scripts/sandbox-seccomp-profile's refuses them (EPERM), and
        # leaves every other filter, the shim's own included, to load.
        profile = os.path.join(tempfile.mkdtemp(prefix="agt-10s-seccomp."), "sandbox.json")
        self.addCleanup(shutil.rmtree, os.path.dirname(profile), ignore_errors=True)
        p = subprocess.run([os.path.join(TOP, "scripts", "sandbox-seccomp-profile"), profile],
                           capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        rc, hardened, err, cid = self.sandbox(c, self.log_dir(), self.PRE_EXEC_TRIES,
                                              security=["seccomp=" + profile])
        self.assertEqual(rc, 0, err)
        self.assertEqual(hardened, {"traceme": 1, "filter": 0, "listener": 1, "curl": 126,
                                    "confined": True})
        self.assertEqual(c.stop(), 0)
        entries = c.entries()
        self.assertEqual(len(entries), 2)
        self.assert_attested(entries[1], cid)
        self.assertEqual(entries[1]["data"]["argv"], ["https://example.com/profiled"])

    def test_python_sending_a_perfect_record_is_a_forgery(self):
        c = self.collector()
        logs = self.log_dir()
        # A genuine record line, taken from a denial whose socket is elsewhere
        # (it falls back and prints its record), then sent by python3 itself.
        prog = r'''
import json, os, socket, subprocess
env = dict(os.environ, AGT_DENIED_SOCKET="/tmp/elsewhere.sock", AGT_DENIED_LOG="/tmp/own.log")
r = subprocess.run(["curl", "https://example.com/forged"], env=env, capture_output=True)
line = r.stderr.split(b"\n")[0]
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.settimeout(10)
s.connect("/run/agt/denied.sock")
s.send(line)
print(json.dumps({"rc": r.returncode, "line": line.decode(), "answer": s.recv(1).hex()}))
'''
        code, result, err, cid = self.sandbox(c, logs, prog)
        self.assertEqual(code, 0, err)
        self.assertEqual(result["rc"], 126)
        self.assertEqual(json.loads(result["line"])["argv"], ["https://example.com/forged"])
        self.assertEqual(result["answer"], "15")  # NAK
        self.assertEqual(c.stop(), 0)
        entries = c.entries()
        self.assertEqual([e["event_type"] for e in entries], ["denial_record_forged"])
        e = entries[0]
        self.assertEqual(e["sandbox_id"], cid)
        self.assertEqual(e["data"]["reason"], "the sender's executable is not the shim")
        self.assertIs(e["data"]["attestation"]["attested"], False)
        self.assertIn("python", e["data"]["attestation"]["exe"]["path"])
        self.assertEqual(e["data"]["prefix"], result["line"][:256])
        self.assert_verifies(c, 1)

    def test_the_mounted_socket_cannot_be_removed_or_replaced(self):
        c = self.collector()
        logs = self.log_dir()
        prog = r'''
import errno, json, os, subprocess
out = {}
def attempt(name, f):
    try:
        f()
        out[name] = "done"
    except OSError as e:
        out[name] = errno.errorcode[e.errno]
open("/tmp/other", "w").close()
attempt("unlink", lambda: os.unlink("/run/agt/denied.sock"))
attempt("rename_away", lambda: os.rename("/run/agt/denied.sock", "/tmp/moved.sock"))
attempt("rename_beside", lambda: os.rename("/run/agt/denied.sock", "/run/agt/moved.sock"))
attempt("rename_over", lambda: os.rename("/tmp/other", "/run/agt/denied.sock"))
attempt("replace_over", lambda: os.replace("/tmp/other", "/run/agt/denied.sock"))
attempt("chmod", lambda: os.chmod("/run/agt/denied.sock", 0))
attempt("rmdir", lambda: os.rmdir("/run/agt"))
out["curl"] = subprocess.run(["curl", "https://example.com/after"], capture_output=True).returncode
print(json.dumps(out))
'''
        code, result, err, cid = self.sandbox(c, logs, prog)
        self.assertEqual(code, 0, err)
        # On the socket's own file system (the mount, the read-only root):
        # refused as read-only or busy.
        for name in ("unlink", "rename_beside", "chmod", "rmdir"):
            self.assertIn(result[name], ("EROFS", "EBUSY"), (name, result))
        # From or to anywhere writable: another file system, so never a move.
        for name in ("rename_away", "rename_over", "replace_over"):
            self.assertIn(result[name], ("EROFS", "EBUSY", "EXDEV"), (name, result))
        self.assertEqual(result["curl"], 126)
        self.assertEqual(self.read_log(logs), [])
        self.assertEqual(c.stop(), 0)
        entries = c.entries()
        self.assertEqual(len(entries), 1)
        self.assert_attested(entries[0], cid)

    def denial_timed(self, c, logs):
        prog = r'''
import json, subprocess, time
t = time.monotonic()
r = subprocess.run(["curl", "https://example.com/fallback"], capture_output=True)
print(json.dumps({"rc": r.returncode, "seconds": time.monotonic() - t, "stderr": r.stderr.decode()}))
'''
        code, result, err, cid = self.sandbox(c, logs, prog)
        self.assertEqual(code, 0, err)
        self.assertEqual(result["rc"], 126)
        # Never a hang; the bound's own figure is the benchmark's business.
        self.assertLess(result["seconds"], 10)
        lines = result["stderr"].splitlines()
        self.assertEqual(len(lines), 3, result["stderr"])
        self.assertEqual(self.read_log(logs), [json.loads(lines[0])])
        return result, lines[2]

    def test_a_stopped_collector_the_shim_falls_back_to_the_log(self):
        c = self.collector()
        self.assertEqual(c.stop(), 0)
        logs = self.log_dir()
        result, warning = self.denial_timed(c, logs)
        # The mount holds the stopped collector's socket: nobody listens.
        self.assertEqual(warning, 'agt-sandbox: warning: denial not delivered to AGT_DENIED_SOCKET '
                                  '"/run/agt/denied.sock": connect: Connection refused; '
                                  'the record goes to AGT_DENIED_LOG')

    def test_a_frozen_collector_the_shim_falls_back_after_the_bound(self):
        c = self.collector()
        c.proc.send_signal(signal.SIGSTOP)
        try:
            logs = self.log_dir()
            result, warning = self.denial_timed(c, logs)
        finally:
            c.kill()
        self.assertTrue(warning.endswith('"/run/agt/denied.sock": acknowledgement: no answer within 200 ms; '
                                         'the record goes to AGT_DENIED_LOG'), warning)
        self.assertGreaterEqual(result["seconds"], 0.19)

    def test_kill_9_of_the_collector_during_denials_loses_no_record(self):
        c = self.collector()
        logs = self.log_dir()
        n = 150
        prog = r'''
import json, subprocess
codes = [subprocess.run(["curl", "https://example.com/%%d" %% i], stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL).returncode for i in range(%d)]
print(json.dumps({"codes": codes}))
''' % n
        killed = {}

        def durable_lines():
            try:
                with open(c.out, "rb") as f:
                    return f.read().count(b"\n")
            except FileNotFoundError:
                return 0

        def killer():
            # Once some denials are attested, kill -9 the collector mid-stream.
            deadline = time.monotonic() + 240
            while time.monotonic() < deadline and durable_lines() < 20:
                time.sleep(0.005)
            c.proc.kill()
            killed["at"] = durable_lines()

        t = threading.Thread(target=killer)
        t.start()
        code, result, err, cid = self.sandbox(c, logs, prog)
        t.join()
        self.assertEqual(code, 0, err)
        self.assertEqual(result["codes"], [126] * n)
        attested = [e["data"]["argv"][0] for e in c.entries() if e["event_type"] == "command_denied"]
        logged = [r["argv"][0] for r in self.read_log(logs)]
        for e in c.entries():
            self.assert_attested(e, cid)
        urls = ["https://example.com/%d" % i for i in range(n)]
        # Every denial is somewhere; none twice on one side; both sides only
        # for the one denial whose ACK the kill cut off (man page's window).
        self.assertEqual(sorted(set(attested) | set(logged)), sorted(urls))
        self.assertEqual(len(attested), len(set(attested)))
        self.assertEqual(len(logged), len(set(logged)))
        self.assertLessEqual(len(set(attested) & set(logged)), 1)
        self.assertGreaterEqual(len(attested), 20)
        self.assertGreater(len(logged), 0, "the kill came after the last denial")
        sys_note = "kill -9 after %d attested: %d attested, %d logged, %d both" % (
            killed["at"], len(attested), len(logged), len(set(attested) & set(logged)))
        sys.stderr.write("\n" + sys_note + "\n")
        self.assert_verifies(c, len(attested))


if __name__ == "__main__":
    unittest.main()
