"""agt-collector forward: the audit trail to a REAL rsyslogd over RELP/TLS
and syslog/TLS on loopback, with certificates made by the test, received by
the shipped configuration (deploy/rsyslog/), rebuilt and verified there."""
import json
import os
import re
import signal
import subprocess
import tempfile
import threading
import time
import unittest

import forward_support
from collector_support import COLLECTOR, record, run_collector
from run_harness import RunHarness
from seeded_random import seeded_random


def entry_ids(path):
    """The entry ids of the file's complete lines: a receiver or the
    collector may be appending to it as it is read, and a line not yet
    ended is read by the next call, not parsed half-written."""
    with open(path, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")[:-1]  # past the last '\n': not ended yet
    return [json.loads(whole_entry(line))["entry_id"] for line in lines]


def whole_entry(line):
    """The line, or the whole entry after a write that a receiver's kill -9
    cut short (the restarted receiver appends to the cut-short bytes;
    verify --drop-duplicates checks that they come again whole)."""
    at = 0
    while True:
        try:
            json.loads(line[at:])
            return line[at:]
        except ValueError:
            at = line.find(b'{"action": "', at + 1)
            if at < 0:
                raise


def records(start, count):
    return "".join(record(pid=i + 2, argv=["-sSL", "https://example.com/%d" % i]) + "\n"
                   for i in range(start, start + count)).encode()


def alive(pid):
    """Running: neither gone nor a zombie its new parent has not reaped yet."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return not f.read().rsplit(") ", 1)[1].startswith("Z")
    except FileNotFoundError:
        return False


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Forward(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="agt-forward-")
        self.addCleanup(self.tmp.cleanup)
        self.dir = self.tmp.name
        self.pki = forward_support.make_pki(os.path.join(self.dir, "pki"))
        self.key = os.path.join(self.dir, "key.bin")
        with open(self.key, "wb") as f:
            f.write(os.urandom(32))
        os.chmod(self.key, 0o600)
        self.audit = os.path.join(self.dir, "audit.jsonl")
        self.host = forward_support.syslog_hostname()

    def import_entries(self, count):
        log = os.path.join(self.dir, "denied.log")
        with open(log, "wb") as f:
            f.write(records(0, count))
        p = run_collector("import", "--key-file", self.key, "--out", self.audit,
                          "--sandbox-id", "sb-1", log)
        self.assertEqual(p.returncode, 0, p.stderr)

    def tls_args(self, pki=None):
        pki = pki or self.pki
        return ["--forward-ca", pki["ca"], "--forward-cert", pki["client_cert"],
                "--forward-key", pki["client_key"]]

    def forward(self, url, *extra, timeout=120):
        return run_collector("forward", "--out", self.audit, "--state-dir",
                             os.path.join(self.dir, "state"), "--forward", url,
                             *(self.tls_args() + list(extra) + ["--until-caught-up"]),
                             timeout=timeout)

    def verify_received(self, path, entries):
        p = run_collector("verify", "--key-file", self.key, "--drop-duplicates", path)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        m = re.search(r"(\d+) entries in (\d+) chain\(s\).*?(\d+) duplicate", p.stdout)
        self.assertIsNotNone(m, p.stdout)
        self.assertEqual(int(m.group(1)), entries, p.stdout)
        return int(m.group(3))

    def test_relp_tls_and_syslog_tls_rebuild_the_file_byte_for_byte(self):
        self.import_entries(3000)
        port, syslog_port = forward_support.free_port(), forward_support.free_port()
        rcv = forward_support.Receiver(self, os.path.join(self.dir, "rcv"), self.pki, port=port,
                                       syslog_port=syslog_port)
        rcv.start()
        with open(self.audit, "rb") as f:
            audit = f.read()
        for url in ("relp+tls://localhost:%d" % port, "syslog+tls://localhost:%d" % syslog_port):
            with self.subTest(url=url):
                p = self.forward(url)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertIn("3000 entries forwarded", p.stderr)
                with open(rcv.file_for(self.host), "rb") as f:
                    self.assertEqual(f.read(), audit)
                self.assertEqual(self.verify_received(rcv.file_for(self.host), 3000), 0)
                os.unlink(rcv.file_for(self.host))
                rcv.stop()
                rcv.start()  # a fresh file for the next transport
        # Caught up: a second run sends nothing again.
        p = self.forward("relp+tls://localhost:%d" % port)
        self.assertIn("0 entries forwarded", p.stderr)

    def import_more(self, start, count, out=None):
        log = os.path.join(self.dir, "more-%d.log" % start)
        with open(log, "wb") as f:
            f.write(records(start, count))
        p = run_collector("import", "--key-file", self.key, "--out", out or self.audit,
                          "--sandbox-id", "sb-2", log)
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_a_file_rotated_while_the_forwarder_was_down_is_finished_first(self):
        self.import_entries(100)
        rcv = forward_support.Receiver(self, os.path.join(self.dir, "rcv"), self.pki)
        rcv.start()
        url = "relp+tls://localhost:%d" % rcv.port
        self.assertEqual(self.forward(url).returncode, 0)
        self.import_more(100, 50)             # more in the old file...
        os.rename(self.audit, self.audit + ".1")  # ...which logrotate moves away
        self.import_more(150, 70)             # a new file, a new chain
        p = self.forward(url)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("finishing the rotated file %s.1 first" % self.audit, p.stderr)
        self.assertIn("120 entries forwarded", p.stderr)
        path = rcv.file_for(self.host)
        p = run_collector("verify", "--key-file", self.key, "--drop-duplicates", path)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("220 entries in 2 chain(s)", p.stdout)
        self.assertIn("0 duplicate(s)", p.stdout)

    def test_a_file_rotated_before_anything_was_acknowledged_is_finished_first(self):
        # The first start for a destination records its position at once:
        # the receiver down, the forwarder killed before any acknowledgement,
        # then the audit file rotated: the next start finishes the old file.
        self.import_entries(100)
        port = forward_support.free_port()
        url = "relp+tls://localhost:%d" % port  # nobody listens yet
        p = subprocess.Popen([COLLECTOR, "forward", "--out", self.audit, "--state-dir",
                              os.path.join(self.dir, "state"), "--forward", url]
                             + self.tls_args(), stderr=subprocess.PIPE, text=True)
        try:
            lines = [p.stderr.readline() for _ in range(3)]
            self.assertIn("confined: ", lines[0])
            self.assertIn("from entry 1 ", lines[1])
            self.assertIn("retrying", lines[2])  # nothing sent, nothing acknowledged
        finally:
            p.kill()
            p.wait()
            p.stderr.close()
        self.import_more(100, 50)
        os.rename(self.audit, self.audit + ".1")
        self.import_more(150, 70)
        rcv = forward_support.Receiver(self, os.path.join(self.dir, "rcv"), self.pki, port=port)
        rcv.start()
        p = self.forward(url)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("finishing the rotated file %s.1 first" % self.audit, p.stderr)
        self.assertIn("220 entries forwarded", p.stderr)
        self.assertEqual(self.verify_received(rcv.file_for(self.host), 220), 0)

    def test_run_forwards_through_logrotate_and_sighup(self):
        h = RunHarness(self, name="forward-rotate", sandboxes=("sb-1",))
        rcv = forward_support.Receiver(self, os.path.join(h.dir, "rcv"), self.pki)
        rcv.start()
        h.start("--forward", "relp+tls://localhost:%d" % rcv.port, *self.tls_args())
        h.append_raw("sb-1", records(0, 300))
        h.wait_for_count(300, timeout=60)
        # Rotated once the forwarder follows the file: one that has not yet
        # opened it starts at the new one (agt-collector(1), FORWARDING).
        path = rcv.file_for(self.host)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if os.path.exists(path) and len(set(entry_ids(path))) >= 300:
                break
            time.sleep(0.05)
        os.rename(h.out, h.out + ".1")
        h.append_raw("sb-1", records(300, 20))  # still into the old file
        time.sleep(0.5)
        h.proc.send_signal(signal.SIGHUP)
        time.sleep(0.5)
        h.append_raw("sb-1", records(320, 200))  # the new file
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if os.path.exists(path) and len(set(entry_ids(path))) >= 520:
                break
            time.sleep(0.2)
        h.stop()
        want = set(entry_ids(h.out + ".1")) | set(entry_ids(h.out))
        self.assertEqual(len(want), 520)
        self.assertEqual(set(entry_ids(path)), want)
        p = run_collector("verify", "--key-file", h.key, "--drop-duplicates", path)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("520 entries in 2 chain(s)", p.stdout)

    def test_a_forwarder_ends_with_run_and_one_destination_has_one_forwarder(self):
        h = RunHarness(self, name="forward-orphan", sandboxes=("sb-1",))
        rcv = forward_support.Receiver(self, os.path.join(h.dir, "rcv"), self.pki)
        rcv.start()
        url = "relp+tls://localhost:%d" % rcv.port
        h.start("--forward", url, *self.tls_args())
        h.append_raw("sb-1", records(0, 100))
        h.wait_for_count(100, timeout=60)
        deadline = time.monotonic() + 10
        while not forward_support.child_pids(h.proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        kids = forward_support.child_pids(h.proc.pid)
        self.assertEqual(len(kids), 1, "run has no forwarder child")
        path = rcv.file_for(self.host)
        deadline = time.monotonic() + 60  # run's forwarder is at work (and holds its lock)
        while time.monotonic() < deadline:
            if os.path.exists(path) and len(set(entry_ids(path))) >= 100:
                break
            time.sleep(0.05)
        second = ["forward", "--out", h.out, "--state-dir", h.state, "--forward", url,
                  *self.tls_args(), "--until-caught-up"]
        # While run's forwarder holds the destination, a second one is refused.
        p = run_collector(*second)
        self.assertEqual(p.returncode, 75, p.stderr)
        self.assertIn("another forwarder is sending to", p.stderr)
        # run killed -9: its forwarder ends too (no orphan racing the next run's).
        h.kill9()
        deadline = time.monotonic() + 10
        while alive(kids[0]) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertFalse(alive(kids[0]), "the forwarder outlived run")
        # The destination is free again, and everything arrived once.
        p = run_collector(*second)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("caught up at entry 100", p.stderr)
        p = run_collector("verify", "--key-file", h.key, "--drop-duplicates", path)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("100 entries in 1 chain(s)", p.stdout)

    def received_lines(self, count):
        """`count` entries forwarded to a real receiver: its file's path and
        lines (bytes, each with its newline) and their entry ids."""
        self.import_entries(count)
        rcv = forward_support.Receiver(self, os.path.join(self.dir, "rcv"), self.pki)
        rcv.start()
        p = self.forward("relp+tls://localhost:%d" % rcv.port)
        self.assertEqual(p.returncode, 0, p.stderr)
        path = rcv.file_for(self.host)
        with open(path, "rb") as f:
            lines = f.readlines()
        self.assertEqual(len(lines), count)
        return path, lines, [json.loads(line)["entry_id"] for line in lines]

    def test_an_edited_or_missing_entry_is_named_at_the_receiver(self):
        path, lines, ids = self.received_lines(50)
        with open(path, "wb") as f:
            f.writelines(lines[:20] + lines[21:])
        p = run_collector("verify", "--key-file", self.key, "--drop-duplicates", path)
        self.assertEqual(p.returncode, 1)
        self.assertIn(":21: %s: previous_hash does not link" % ids[21], p.stderr)
        with open(path, "wb") as f:
            f.writelines(lines[:30] + [lines[30].replace(b'"curl"', b'"wget"', 1)] + lines[31:])
        p = run_collector("verify", "--key-file", self.key, "--drop-duplicates", path)
        self.assertEqual(p.returncode, 1)
        self.assertIn(":31: content_hash does not match", p.stderr)

    def test_a_write_cut_short_by_a_receiver_crash_is_dropped_once_its_entry_comes_again(self):
        # rsyslogd killed -9 in the middle of a write(2) leaves the first bytes
        # of an entry it had not acknowledged (the kernel ends a write at a page
        # boundary once SIGKILL is pending); restarted, it appends the re-sent
        # entries to them. Here the real receiver's file, cut so.
        path, lines, ids = self.received_lines(50)
        for cut in (1, 700, len(lines[20]) - 1):
            with open(path, "wb") as f:
                f.writelines(lines[:20] + [lines[20][:cut]] + lines[18:])
            p = run_collector("verify", "--key-file", self.key, "--drop-duplicates", path)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
            self.assertIn("50 entries in 1 chain(s)", p.stdout)
            self.assertIn("2 duplicate(s) dropped; 1 write(s) cut short by a receiver's crash "
                          "dropped (each entry whole after it)", p.stdout)
            self.assertEqual(entry_ids(path), ids[:20] + ids[18:])
        # The entry cut short never came whole: it is missing, and named.
        with open(path, "wb") as f:
            f.writelines(lines[:20] + [lines[40][:700]] + lines[20:40])
        p = run_collector("verify", "--key-file", self.key, "--drop-duplicates", path)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn(":21: a write cut short (the first 700 bytes of the line, before the entry "
                      "after them): no whole entry after it begins with them, so its entry never "
                      "arrived", p.stderr)
        # The collector's own file allows no such line.
        p = run_collector("verify", "--key-file", self.key, path)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn(":21: ", p.stderr)

    def test_a_receiver_with_the_wrong_name_is_refused_and_never_sent_to(self):
        self.import_entries(10)
        wrong = forward_support.make_pki(os.path.join(self.dir, "wrong"),
                                         receiver_name="not-the-receiver.example.org")
        # Our CA signs a receiver certificate for another name.
        pki = dict(self.pki, receiver_cert=wrong["receiver_cert"],
                   receiver_key=wrong["receiver_key"])
        rcv = forward_support.Receiver(self, os.path.join(self.dir, "rcv"), pki,
                                       syslog_port=forward_support.free_port())
        rcv.start()
        for url, what in (("relp+tls://localhost:%d" % rcv.port, "RELP connect"),
                          ("syslog+tls://localhost:%d" % rcv.syslog_port, "TLS handshake")):
            with self.subTest(url=url):
                proc = subprocess.Popen(
                    [COLLECTOR, "forward", "--out", self.audit, "--state-dir",
                     os.path.join(self.dir, "state"), "--forward", url] + self.tls_args(),
                    stderr=subprocess.PIPE, text=True)
                time.sleep(3)  # several tries
                proc.send_signal(signal.SIGTERM)
                _, err = proc.communicate(timeout=20)
                self.assertRegex(err, r"error: forward: .*%s.*; nothing is sent to it" % what)
                self.assertEqual(err.count("nothing is sent"), 1, err)  # once per outage
                self.assertFalse(os.path.exists(rcv.file_for(self.host)))

    def test_a_receiver_that_never_acknowledges_does_not_grow_memory(self):
        self.import_entries(20000)
        # A RELP peer that opens the session, reads every frame and never
        # answers one: the forwarder must stop at its window, not buffer.
        import socket
        srv = socket.socket()
        srv.bind(("127.0.0.1", 0))
        srv.listen(16)
        srv.settimeout(0.2)
        self.addCleanup(srv.close)
        port = srv.getsockname()[1]
        stop = threading.Event()
        self.addCleanup(stop.set)
        frames = [0]

        def serve(conn):
            buf = b""
            conn.settimeout(0.2)
            while not stop.is_set():
                try:
                    data = conn.recv(65536)
                except OSError:
                    continue
                if not data:
                    break
                buf += data
                while True:
                    m = re.match(rb"(\d+) (\w+) (\d+)", buf)
                    if not m:
                        break
                    end = m.end() + (1 if int(m.group(3)) else 0) + int(m.group(3)) + 1
                    if len(buf) < end:
                        break
                    if m.group(2) == b"open":
                        body = b"200 OK\nrelp_version=0\ncommands=syslog"
                        conn.sendall(b"%s rsp %d %s\n" % (m.group(1), len(body), body))
                    else:
                        frames[0] += 1  # read, never answered
                    buf = buf[end:]
            conn.close()

        def accept():
            while not stop.is_set():
                try:
                    conn = srv.accept()[0]
                except OSError:
                    continue
                threading.Thread(target=serve, args=(conn,), daemon=True).start()
        threading.Thread(target=accept, daemon=True).start()
        proc = subprocess.Popen([COLLECTOR, "forward", "--out", self.audit, "--state-dir",
                                 os.path.join(self.dir, "state"), "--forward",
                                 "relp://127.0.0.1:%d" % port],
                                stderr=subprocess.PIPE, text=True)
        samples = []
        for _ in range(10):
            time.sleep(0.5)
            samples.append(rss_kb(proc.pid))
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=20)
        # It sent a window's worth and then waited; nothing was acknowledged,
        # so the position is still the one recorded at start: the file's start.
        self.assertGreaterEqual(frames[0], 100)
        self.assertLess(frames[0], 1000)
        with open(os.path.join(self.dir, "state",
                               "forward.relp-127.0.0.1-%d.checkpoint" % port)) as f:
            self.assertRegex(f.read(), r"\ndev=\d+ ino=\d+ offset=0 ")
        self.assertLess(max(samples), 16 * 1024, samples)
        self.assertLess(max(samples) - samples[1], 512, samples)


class Export(unittest.TestCase):
    VECTORS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                           "cloudevents-vectors")

    def test_export_gives_upstreams_envelopes_key_for_key(self):
        p = run_collector("export", os.path.join(self.VECTORS, "input.jsonl"))
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(self.VECTORS, "expected.jsonl")) as f:
            want = [json.loads(line) for line in f]
        got = [json.loads(line) for line in p.stdout.splitlines()]
        # Upstream writes "...+00:00Z"; the vectors hold the RFC 3339 form ours has.
        self.assertEqual(got, want)
        self.assertTrue(all(e["time"].endswith("Z") and "+00:00" not in e["time"] for e in got))

    def test_export_names_a_line_that_is_not_an_entry(self):
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl") as f:
            with open(os.path.join(self.VECTORS, "input.jsonl")) as src:
                lines = src.readlines()
            f.write(lines[0] + "not json\n" + lines[1])
            f.flush()
            p = run_collector("export", f.name)
        self.assertEqual(p.returncode, 65)
        self.assertIn("%s:2: not a JSON object" % f.name, p.stderr)
        self.assertEqual(len(p.stdout.splitlines()), 2)

    def test_export_refuses_a_lone_byte_order_mark_byte(self):
        # Document::Parse(str, len) skipped 0xEF, 0xBB and 0xBF at the start
        # one by one: "\xbb{entry}" was exported as the entry.
        with open(os.path.join(self.VECTORS, "input.jsonl"), "rb") as src:
            lines = src.readlines()
        for lead in (b"\xef", b"\xbb", b"\xbf", b"\xef\xbb\xbf"):
            with self.subTest(lead=lead), tempfile.NamedTemporaryFile("wb", suffix=".jsonl") as f:
                f.write(lines[0] + lead + lines[1])
                f.flush()
                p = run_collector("export", f.name)
                self.assertEqual(p.returncode, 65, p.stderr)
                self.assertIn("%s:2: not a JSON object" % f.name, p.stderr)
                self.assertEqual(len(p.stdout.splitlines()), 1)


class KillStorm(unittest.TestCase):
    """50,000 denials through `run --forward`, rsyslogd killed -9 and
    restarted 10 times, the forwarder killed -9 10 times: every entry
    arrives, the rebuilt file verifies, duplicates stay within what was not
    yet known acknowledged."""

    TOTAL = 50000
    KILLS = 10

    def test_kill_storm(self):
        rng = seeded_random(self)
        h = RunHarness(self, name="forward-storm", sandboxes=("sb-1", "sb-2"))
        pki = forward_support.make_pki(os.path.join(h.dir, "pki"))
        rcv = forward_support.Receiver(self, os.path.join(h.dir, "rcv"), pki)
        rcv.start()
        h.start("--forward", "relp+tls://localhost:%d" % rcv.port, "--forward-ca", pki["ca"],
                "--forward-cert", pki["client_cert"], "--forward-key", pki["client_key"])
        chunks = 100
        per = self.TOTAL // chunks
        done = threading.Event()

        def write():
            for i in range(chunks):
                h.append_raw("sb-%d" % (1 + i % 2), records(i * per, per))
                time.sleep(0.05)
            done.set()
        writer = threading.Thread(target=write)
        writer.start()
        forwarder_kills = 0
        for i in range(self.KILLS):
            time.sleep(rng.uniform(0.2, 0.8))
            rcv.kill9()
            time.sleep(rng.uniform(0.0, 0.3))
            rcv.start()
            time.sleep(rng.uniform(0.2, 0.8))
            deadline = time.monotonic() + 10
            while not forward_support.child_pids(h.proc.pid) and time.monotonic() < deadline:
                time.sleep(0.05)
            kids = forward_support.child_pids(h.proc.pid)
            self.assertTrue(kids, "run has no forwarder child")
            os.kill(kids[0], signal.SIGKILL)
            forwarder_kills += 1
        writer.join()
        self.assertEqual(forwarder_kills, self.KILLS)
        h.wait_for_count(self.TOTAL, timeout=120)
        path = rcv.file_for(forward_support.syslog_hostname())
        want = set(entry_ids(h.out))
        self.assertEqual(len(want), self.TOTAL)
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            if os.path.exists(path) and set(entry_ids(path)) >= want:
                break
            time.sleep(0.5)
        h.stop()
        got = entry_ids(path)
        self.assertEqual(set(got), want)
        p = run_collector("verify", "--key-file", h.key, "--drop-duplicates", path)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("%d entries in 1 chain(s)" % self.TOTAL, p.stdout)
        duplicates = len(got) - len(want)
        # Re-sent only what was not known acknowledged: per interruption at
        # most one RELP window (128) plus one unsaved batch (256).
        self.assertLessEqual(duplicates, 2 * self.KILLS * (128 + 256))
        print("  kill storm: %d entries, %d duplicates after %d receiver and %d forwarder "
              "kills" % (self.TOTAL, duplicates, self.KILLS, forwarder_kills))


if __name__ == "__main__":
    unittest.main()
