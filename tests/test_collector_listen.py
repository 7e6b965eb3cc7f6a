"""agt-collector run --listen: the attested socket, end to end.

Real parts: the collector binds a real SOCK_SEQPACKET socket; senders run in
real cgroups laid out as Docker's (listen_support.Container); the genuine
sender is collector-test-sender named by --shim, or the real static shim
exec'd through a symlink (WithTheRealShim); python3 is "another executable";
strace is a real tracer. The hardened image under the real Docker engine is
test_image_attested.py.
"""
import hashlib
import json
import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import time
import unittest

import collector_upstream_verifier as upstream
from collector_support import SHIM, record, record_part, run_collector
from listen_support import (ACK, NAK, SENDER, Container, ListenCollector, modified_copy,
                            python_send)
from run_harness import read_chain_head
from strace_support import strace_argv


def sha256_of(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


class ListenBase(unittest.TestCase):
    def container(self):
        c = Container()
        self.addCleanup(c.close)
        return c

    def trace_collector(self, c, trace, *exprs, **kw):
        """strace attached to the running collector (its threads too), its
        trace to `trace`; returns once the kernel shows it attached. SIGINT
        detaches it."""
        tracer = subprocess.Popen(strace_argv(trace, *exprs, **kw) + ["-p", str(c.proc.pid)])
        self.addCleanup(lambda: tracer.poll() is None and tracer.kill())
        deadline = time.monotonic() + 10
        while not re.search(r"^TracerPid:\s+[1-9]", open("/proc/%d/status" % c.proc.pid).read(),
                            re.M):
            self.assertLess(time.monotonic(), deadline, "strace did not attach")
            time.sleep(0.02)
        return tracer

    def assert_verifies(self, c, count):
        r = run_collector("verify", "--key-file", c.w.key_file, c.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("%d entries" % count, r.stdout)
        with open(c.out, encoding="ascii") as f:
            lines = f.read().splitlines()
        self.assertEqual(upstream.verify_lines(lines, c.w.key)[:2], (True, count))


class ListenTest(ListenBase):
    def test_the_genuine_sender_in_a_container_is_attested(self):
        c = ListenCollector(self).start()
        box = self.container()
        rec = record(argv=["-sSL", "https://example.com/attested"])
        r = box.run([SENDER, c.socket, rec])
        self.assertEqual((r.returncode, r.stdout), (0, "ACK\n"), r.stderr)
        # Acknowledged means durable: the entry is there before the collector stops.
        entries = c.entries()
        self.assertEqual(len(entries), 1)
        e = entries[0]
        self.assertEqual(e["event_type"], "command_denied")
        self.assertEqual(e["sandbox_id"], box.id)
        self.assertEqual(e["agent_did"], "did:agt:sandbox:" + box.id)
        self.assertEqual(e["data"]["argv"], ["-sSL", "https://example.com/attested"])
        att = e["data"]["attestation"]
        st = os.stat(SENDER)
        self.assertEqual(att["attested"], True)
        self.assertEqual(att["exe"], {"dev": st.st_dev, "ino": st.st_ino, "path": SENDER,
                                      "sha256": sha256_of(SENDER)})
        self.assertEqual(att["cgroup"], box.cgroup)
        self.assertEqual((att["uid"], att["gid"], att["tracer_pid"]), (os.getuid(), os.getgid(), 0))
        # Root reads any file, so its shim is dumpable: attested, its memory
        # not protected (MemoryOfTheSandboxUser has the sandbox user's case).
        self.assertEqual(att["memory_protected"], False)
        self.assertGreater(att["pid"], 1)
        self.assertEqual(e["data"]["labels"],
                         {"sandbox_id": box.id, "environment": None, "compute_driver": None})
        self.assertEqual(e["data"]["source"]["file"], c.socket)
        self.assertEqual(c.stop(), 0)
        self.assertIn("1 attested entries", c.stderr())
        self.assert_verifies(c, 1)

    def test_concurrent_senders_share_syncs_on_the_confined_sync_thread(self):
        c = ListenCollector(self).start()
        self.assertRegex(c.stderr(), r"group commit: up to 1024 records of at most 3584 bytes "
                                     r"per fdatasync, on a sync thread")
        boxes = [self.container() for _ in range(6)]
        runs = [b.popen([SENDER, c.socket, record(argv=["group", str(i)]), "--repeat", "40"],
                        stdout=subprocess.PIPE, text=True) for i, b in enumerate(boxes)]
        outs = [r.communicate(timeout=120)[0] for r in runs]
        self.assertEqual([r.returncode for r in runs], [0] * 6, outs)
        self.assertTrue(all(o.startswith("acks=40 ") for o in outs), outs)
        # The sync thread started after confinement, under the same filter:
        # two tasks (three under ThreadSanitizer, whose runtime starts its own
        # background thread with the first one: scripts/test-sanitized --tsan),
        # and no fallback to syncing in line.
        tasks = 3 if "TSAN_OPTIONS" in os.environ else 2
        self.assertEqual(len(os.listdir("/proc/%d/task" % c.proc.pid)), tasks)
        self.assertEqual(c.stop(), 0)
        self.assertNotIn("syncing in line", c.stderr())
        self.assertIn("240 attested entries", c.stderr())
        denied = [e for e in c.entries() if e["event_type"] == "command_denied"]
        self.assertEqual(len(denied), 240)
        self.assertEqual(sorted({e["sandbox_id"] for e in denied}), sorted(b.id for b in boxes))
        self.assert_verifies(c, 240)

    def test_the_start_line_gives_the_bound_for_a_record_alone(self):
        c = ListenCollector(self).start()
        self.assertIn("or under 2000 us for a record that came alone", c.stderr())
        self.assertEqual(c.stop(), 0)
        c = ListenCollector(self).start("--alone-sync-under", "0")
        self.assertIn("or under 0 us for a record that came alone", c.stderr())
        self.assertEqual(c.stop(), 0)

    def test_a_denial_that_comes_alone_is_synced_in_line_and_a_crowd_on_the_thread(self):
        # Whether a sync is brief is the disk's to say (the default bound,
        # 2 ms, is beyond some disks' syncs): a bound of a second makes every
        # sync brief here, so which thread syncs follows from what came alone.
        c = ListenCollector(self).start("--alone-sync-under", "1000000")
        self.assertIn("or under 1000000 us for a record that came alone", c.stderr())
        # On tmpfs every sync is quick, in line whatever came: the audit file
        # must be on a disk for the thread to be the default.
        fs = subprocess.run(["stat", "-f", "-c", "%T", c.w.path], capture_output=True,
                            text=True, check=True).stdout.strip()
        self.assertNotEqual(fs, "tmpfs", "this test needs a /tmp that is not tmpfs")
        trace = c.w.join("fdatasync.trace")
        tracer = self.trace_collector(c, trace, "trace=fdatasync")

        def syncs():
            """fdatasync calls so far: (by the main thread, by any other)."""
            with open(trace, encoding="utf-8", errors="replace") as f:
                tids = [int(m.group(1)) for m in re.finditer(r"^(\d+) +fdatasync\(", f.read(),
                                                            re.M)]
            main = sum(1 for t in tids if t == c.proc.pid)
            return main, len(tids) - main

        # One sender, one denial at a time: each comes alone, and is synced by
        # the main thread itself (after the first, which has no sync timed
        # yet and goes to the thread).
        box = self.container()
        r = box.run([SENDER, c.socket, record(argv=["alone"]), "--repeat", "8"])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        alone_main, alone_thread = syncs()
        self.assertEqual((alone_main, alone_thread), (7, 1))
        # Six at once: while one sync runs the others queue up, and a Pump that
        # finds more than one hands their sync to the thread.
        boxes = [self.container() for _ in range(6)]
        runs = [b.popen([SENDER, c.socket, record(argv=["crowd", str(i)]), "--repeat", "30"],
                        stdout=subprocess.PIPE, text=True) for i, b in enumerate(boxes)]
        outs = [p.communicate(timeout=120)[0] for p in runs]
        self.assertTrue(all(o.startswith("acks=30 ") for o in outs), outs)
        crowd_main, crowd_thread = syncs()
        self.assertGreater(crowd_thread, alone_thread, (crowd_main, crowd_thread))
        tracer.send_signal(signal.SIGINT)  # detaches
        tracer.wait(timeout=30)
        self.assertEqual(c.stop(), 0)
        self.assertIn("188 attested entries", c.stderr())
        self.assert_verifies(c, 188)

    def test_the_chain_head_follows_the_socket_at_most_ten_times_a_second(self):
        c = ListenCollector(self)
        state = c.w.join("state")
        c.start("--state-dir", state)
        head = os.path.join(state, "chain.head")
        self.assertEqual(read_chain_head(head)["entries"], 0)  # made at start
        boxes = [self.container() for _ in range(6)]
        started = time.monotonic()
        runs = [b.popen([SENDER, c.socket, record(argv=["head", str(i)]), "--repeat", "40"],
                        stdout=subprocess.PIPE, text=True) for i, b in enumerate(boxes)]
        outs = [r.communicate(timeout=120)[0] for r in runs]
        elapsed = time.monotonic() - started
        self.assertTrue(all(o.startswith("acks=40 ") for o in outs), outs)
        # Each save is a new slot (its sequence number one more): one every
        # 100 ms at most while denials come, not one per acknowledged batch
        # (a batch is a few denials: dozens of saves here).
        saves = read_chain_head(head)["seq"]
        self.assertLessEqual(saves, int(elapsed / 0.1) + 3, (saves, elapsed))
        # The socket quiet: the head follows what is durable within 100 ms,
        # not only at exit.
        deadline = time.monotonic() + 10
        while read_chain_head(head)["entries"] != 240 and time.monotonic() < deadline:
            time.sleep(0.02)
        self.assertEqual(read_chain_head(head)["entries"], 240)
        self.assertEqual(c.stop(), 0)
        r = run_collector("verify", "--key-file", c.w.key_file, "--state-dir", state, c.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("(240 entries) matches", r.stdout)

    def test_a_sender_that_moves_to_another_container_is_attributed_to_each_in_turn(self):
        # The collector keeps a container's answer by the kernel's cgroup id:
        # the same process, moved between two denials, must be named by the
        # cgroup it is in at each, and the first container stays its own.
        c = ListenCollector(self).start()
        first, second = self.container(), self.container()
        mover = first.popen([SENDER, c.socket, record(argv=["moved"]), "--repeat", "3",
                             "--step", "1"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
        self.assertEqual(mover.stdout.readline(), "ACK\n")
        with open(os.path.join(second.path, "cgroup.procs"), "w") as f:
            f.write(str(mover.pid))
        mover.stdin.write("\n")
        mover.stdin.flush()
        self.assertEqual(mover.stdout.readline(), "ACK\n")
        with open(os.path.join(first.path, "cgroup.procs"), "w") as f:
            f.write(str(mover.pid))
        mover.stdin.write("\n")
        mover.stdin.flush()
        self.assertEqual(mover.stdout.readline(), "ACK\n")
        mover.stdin.close()
        self.assertEqual(mover.wait(30), 0)
        r = second.run([SENDER, c.socket, record(argv=["stayed"])])
        self.assertEqual(r.stdout, "ACK\n", r.stderr)
        self.assertEqual(c.stop(), 0)
        entries = c.entries()
        self.assertEqual([(e["data"]["argv"][0], e["sandbox_id"], e["data"]["attestation"]["cgroup"])
                          for e in entries],
                         [("moved", first.id, first.cgroup), ("moved", second.id, second.cgroup),
                          ("moved", first.id, first.cgroup), ("stayed", second.id, second.cgroup)])
        self.assertEqual({e["data"]["attestation"]["pid"] for e in entries[:3]}, {mover.pid})
        self.assert_verifies(c, 4)

    def test_python_sending_a_perfect_record_is_a_forgery(self):
        c = ListenCollector(self).start()
        box = self.container()
        rec = record(argv=["forged"])
        # python3 inside the container sends exactly what the shim would.
        r = box.run(["python3", "-c", "import sys; sys.path.insert(0, %r); "
                     "import listen_support as l; "
                     "sys.stdout.write(l.python_send(%r, %r.encode()).hex())"
                     % (os.path.dirname(os.path.abspath(__file__)), c.socket, rec)])
        self.assertEqual(r.stdout, NAK.hex(), r.stderr)
        self.assertEqual(c.stop(), 0)
        entries = c.entries()
        self.assertEqual([e["event_type"] for e in entries], ["denial_record_forged"])
        e = entries[0]
        self.assertEqual(e["sandbox_id"], box.id)
        self.assertEqual(e["data"]["prefix"], rec[:256])
        self.assertEqual(e["data"]["message_bytes"], len(rec))
        self.assertEqual(e["data"]["count"], 1)
        self.assertEqual(e["data"]["reason"], "the sender's executable is not the shim")
        self.assertEqual(e["data"]["attestation"]["attested"], False)
        self.assertEqual(e["data"]["attestation"]["cgroup"], box.cgroup)
        self.assertIn("python", e["data"]["attestation"]["exe"]["path"])
        self.assert_verifies(c, 1)

    def test_a_modified_copy_and_a_traced_shim_are_forgeries(self):
        c = ListenCollector(self).start()
        box = self.container()
        copy = modified_copy(SENDER, c.w.join("sender-copy"))
        r = box.run([copy, c.socket, record(argv=["copy"])])
        self.assertEqual(r.stdout, "NAK\n", r.stderr)
        # The genuine executable under a tracer: its memory could be rewritten.
        r = box.run(strace_argv(os.devnull) + [SENDER, c.socket, record(argv=["traced"])])
        self.assertEqual(r.stdout, "NAK\n", r.stderr)
        self.assertEqual(c.stop(), 0)
        entries = c.entries()
        self.assertEqual([e["event_type"] for e in entries], ["denial_record_forged"] * 2)
        copied, traced = (e["data"] for e in entries)
        self.assertEqual(copied["reason"], "the sender's executable is not the shim")
        self.assertEqual(copied["attestation"]["exe"]["path"], copy)
        self.assertIsNone(copied["attestation"]["exe"]["sha256"])  # size differs: not hashed
        self.assertEqual(traced["reason"], "the sender runs under a tracer (TracerPid is not 0)")
        self.assertNotEqual(traced["attestation"]["tracer_pid"], 0)
        self.assertEqual(traced["attestation"]["exe"]["sha256"], sha256_of(SENDER))
        self.assertIn('"traced"', traced["prefix"])

    def test_a_sender_gone_before_the_check_is_not_attested(self):
        c = ListenCollector(self).start()
        box = self.container()
        c.proc.send_signal(signal.SIGSTOP)
        try:
            # The genuine sender connects and sends, waits 1 ms, and is gone.
            r = box.run([SENDER, c.socket, record(argv=["gone"]), "--timeout-ms", "1"])
            self.assertEqual(r.stdout, "TIMEOUT\n", r.stderr)
        finally:
            c.proc.send_signal(signal.SIGCONT)
        self.assertEqual(c.stop(), 0)
        entries = c.entries()
        self.assertEqual([e["event_type"] for e in entries], ["denial_record_forged"])
        self.assertEqual(entries[0]["data"]["reason"],
                         "the sender exited before it could be checked")
        self.assertIn('"gone"', entries[0]["data"]["prefix"])

    @staticmethod
    def sockets_of(pid):
        fd_dir = "/proc/%d/fd" % pid
        count = 0
        for name in os.listdir(fd_dir):
            try:
                count += os.readlink(os.path.join(fd_dir, name)).startswith("socket:")
            except OSError:
                pass
        return count

    def test_a_record_sent_before_exec_of_the_shim_is_a_forgery(self):
        # A script connects, sends its record, keeps the socket across an
        # exec of the genuine sender: the kernel then names the genuine
        # executable for that connection, but the process did not open it.
        c = ListenCollector(self).start()
        box = self.container()
        code = ("import os, socket\n"
                "s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)\n"
                "s.connect(%r); s.set_inheritable(True); s.send(%r.encode())\n"
                "os.execv(%r, [%r, %r, %r, '--timeout-ms', '5000'])\n"
                % (c.socket, record(argv=["injected"]), SENDER, SENDER, c.socket,
                   record(argv=["own"])))
        c.proc.send_signal(signal.SIGSTOP)
        try:
            proc = box.popen(["python3", "-c", code], stdout=subprocess.PIPE, text=True)
            # Wait until it has exec'd the sender and that has connected too
            # (two sockets), then a little for its send.
            deadline = time.monotonic() + 20
            while self.sockets_of(proc.pid) < 2 or os.readlink("/proc/%d/exe" % proc.pid) != SENDER:
                self.assertLess(time.monotonic(), deadline, "the sender never connected")
                time.sleep(0.01)
            time.sleep(0.2)
        finally:
            c.proc.send_signal(signal.SIGCONT)
        self.assertEqual(proc.communicate(timeout=30)[0], "ACK\n")
        self.assertEqual(c.stop(), 0)
        by_type = {e["event_type"]: e for e in c.entries()}
        self.assertEqual(sorted(by_type), ["command_denied", "denial_record_forged"])
        self.assertEqual(by_type["command_denied"]["data"]["argv"], ["own"])
        forged = by_type["denial_record_forged"]["data"]
        self.assertIn('"injected"', forged["prefix"])
        self.assertEqual(forged["attestation"]["exe"]["path"], SENDER)
        self.assertTrue(forged["reason"].startswith("the sender's socket was not opened by the shim"),
                        forged["reason"])

    def test_repeats_from_one_peer_are_counted_not_written_one_by_one(self):
        c = ListenCollector(self).start()
        box = self.container()
        code = ("import sys; sys.path.insert(0, %r); import listen_support as l\n"
                "answers = set(l.python_send(%r, b'\\xff' + bytes(i %% 256 for i in range(300))) for _ in range(300))\n"
                "print(sorted(a.hex() for a in answers))"
                % (os.path.dirname(os.path.abspath(__file__)), c.socket))
        r = box.run(["python3", "-c", code], timeout=120)
        self.assertEqual(r.stdout.strip(), "['15']", r.stderr)
        self.assertEqual(c.stop(), 0)
        entries = c.entries()
        self.assertEqual([e["event_type"] for e in entries], ["denial_record_forged"] * 2)
        self.assertEqual([e["data"]["count"] for e in entries], [1, 299])
        prefix = entries[0]["data"]["prefix"]
        self.assertTrue(prefix.startswith("\\xff\\x00\\x01"), prefix[:40])
        self.assertLessEqual(len(prefix), 4 * 256)  # 256 bytes, each at most "\xNN"
        self.assertEqual(entries[0]["data"]["message_bytes"], 301)
        self.assert_verifies(c, 2)

    def test_a_flooding_container_does_not_block_another(self):
        c = ListenCollector(self).start()
        hostile, other = self.container(), self.container()
        # 200 idle connections from one container: the collector holds 64
        # (its per-container limit) and refuses the rest at once.
        code = ("import socket, sys, time\n"
                "held = []\n"
                "for _ in range(200):\n"
                "    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)\n"
                "    s.connect(%r); held.append(s)\n"
                "time.sleep(0.5)\n"
                "refused = 0\n"
                "for s in held:\n"
                "    s.setblocking(False)\n"
                "    try:\n"
                "        refused += s.recv(1) == b'\\x15'\n"
                "    except BlockingIOError:\n"
                "        pass\n"
                "print(refused, flush=True)\n"
                "sys.stdin.read()\n" % c.socket)
        flood = hostile.popen(["python3", "-c", code], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
        self.addCleanup(flood.kill)
        self.assertEqual(flood.stdout.readline().strip(), "136")
        # Meanwhile the other container's denial goes through.
        r = other.run([SENDER, c.socket, record(argv=["other"])])
        self.assertEqual(r.stdout, "ACK\n", r.stderr)
        flood.stdin.close()
        flood.wait(timeout=30)
        flood.stdout.close()
        self.assertEqual(c.stop(), 0)
        self.assertIn("holds 64 connections (the limit)", c.stderr())
        denied = [e for e in c.entries() if e["event_type"] == "command_denied"]
        self.assertEqual([e["sandbox_id"] for e in denied], [other.id])

    def test_with_the_shims_hash_alone_hashing_is_held_to_a_budget_and_its_size_learnt(self):
        # The shim named by hash alone: until a sender has that hash, any
        # executable may be it, so each new one is read in full. A sandbox
        # can make every executable new (changed just now: never cached);
        # 32 MiB each, 20 messages, would be 640 MiB of hashing on the
        # collector's one loop. Its container's budget pays for 64 MiB a second.
        c = ListenCollector(self, shim_sha256=sha256_of(SENDER)).start()
        hostile, other = self.container(), self.container()

        def padded_python(name):
            path = c.w.join(name)
            # Debian's interpreter itself: "python3" on PATH may be a
            # wrapper script (pyenv), which a copy would not run as.
            shutil.copyfile(os.path.realpath("/usr/bin/python3"), path)
            os.truncate(path, 32 << 20)  # still runs: the ELF is at the start
            os.chmod(path, 0o755)
            return path

        def flood(exe):
            code = ("import os, sys; sys.path.insert(0, %r); import listen_support as l\n"
                    "answers = []\n"
                    "for _ in range(20):\n"
                    "    os.chmod(sys.executable, 0o755)  # changed just now: not cached\n"
                    "    answers.append(l.python_send(%r, b'{\"forged\": 1}'))\n"
                    "print(sorted(set(a.hex() for a in answers)))"
                    % (os.path.dirname(os.path.abspath(__file__)), c.socket))
            r = hostile.run([exe, "-c", code], timeout=120)
            self.assertEqual(r.stdout.strip(), "['15']", r.stderr)

        first = padded_python("python3-padded")
        flood(first)
        # Another container's genuine sender is attested meanwhile: its own
        # budget; and from it the collector learns the shim's size.
        r = other.run([SENDER, c.socket, record(argv=["other"])])
        self.assertEqual(r.stdout, "ACK\n", r.stderr)
        # Now a file of another size cannot be the shim: not read, so not
        # paid for: every message is judged, none refused.
        second = padded_python("python3-padded-2")
        flood(second)
        self.assertEqual(c.stop(), 0)
        self.assertIn("connection refused: cgroup %s is over its hashing budget (64 MiB/s"
                      % hostile.cgroup, c.stderr())
        forged = {}
        for e in c.entries():
            if e["event_type"] == "denial_record_forged":
                exe = e["data"]["attestation"]["exe"]
                forged.setdefault(exe["path"], []).append((e["data"]["count"], exe["sha256"]))
        judged_first = sum(n for n, _ in forged[first])
        self.assertGreaterEqual(judged_first, 1)
        self.assertLess(judged_first, 20, "every new 32 MiB executable was hashed")
        self.assertEqual({h for _, h in forged[first]}, {sha256_of(first)})
        self.assertEqual(sum(n for n, _ in forged[second]), 20)
        self.assertEqual({h for _, h in forged[second]}, {None})
        denied = [e for e in c.entries() if e["event_type"] == "command_denied"]
        self.assertEqual([e["sandbox_id"] for e in denied], [other.id])
        self.assertEqual(denied[0]["data"]["attestation"]["exe"]["sha256"], sha256_of(SENDER))

    def test_idle_connections_time_out_as_forgeries(self):
        c = ListenCollector(self).start()
        box = self.container()
        code = ("import socket\n"
                "s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)\n"
                "s.connect(%r); s.settimeout(10); print(s.recv(1).hex())" % c.socket)
        start = time.monotonic()
        r = box.run(["python3", "-c", code])
        self.assertEqual(r.stdout.strip(), "15", r.stderr)
        self.assertGreaterEqual(time.monotonic() - start, 0.9)  # the 1 s read timeout
        self.assertEqual(c.stop(), 0)
        entries = c.entries()
        self.assertEqual(len(entries), 1)
        self.assertEqual(entries[0]["data"]["reason"], "no record within the read timeout (1000 ms)")

    def test_a_genuine_sender_outside_any_container_is_not_acknowledged(self):
        c = ListenCollector(self).start()
        r = subprocess.run([SENDER, c.socket, record()], capture_output=True, text=True,
                           timeout=30)
        self.assertEqual(r.stdout, "NAK\n")
        self.assertEqual(c.stop(), 0)
        self.assertEqual(c.entries(), [])
        self.assertIn("the cgroup names no sandbox", c.stderr())

    def test_the_operators_cgroup_pattern_gives_the_sandbox_id(self):
        box = self.container()
        c = ListenCollector(self, extra=["--cgroup-pattern", "/docker-([0-9a-f]{12})[0-9a-f]{52}"])
        c.start()
        r = box.run([SENDER, c.socket, record()])
        self.assertEqual(r.stdout, "ACK\n", r.stderr)
        self.assertEqual(c.stop(), 0)
        self.assertEqual(c.entries()[0]["sandbox_id"], box.id[:12])


class WithTheRealShim(ListenBase):
    """The static shim exec'd through a symlink named curl, in a container."""

    def deny(self, c, box, *wrapper):
        link = c.w.join("curl")
        if not os.path.islink(link):
            os.symlink(SHIM, link)
        log = c.w.join("denied.log")
        env = {"PATH": "/usr/bin:/bin", "AGT_DENIED_SOCKET": c.socket, "AGT_DENIED_LOG": log}
        r = box.run([*wrapper, link, "-sSL", "https://example.com/real"], env=env)
        self.assertEqual(r.returncode, 126, r.stderr)
        logged = ""
        if os.path.exists(log):
            with open(log, encoding="utf-8") as f:
                logged = f.read()
        return r, logged

    def test_a_denial_through_the_real_shim_is_attested_and_its_log_untouched(self):
        c = ListenCollector(self, shim=SHIM).start()
        box = self.container()
        r, logged = self.deny(c, box)
        self.assertEqual(logged, "")  # delivered: the log is not written
        self.assertNotIn("warning", r.stderr)
        self.assertEqual(c.stop(), 0)
        (e,) = c.entries()
        self.assertEqual((e["event_type"], e["sandbox_id"]), ("command_denied", box.id))
        self.assertEqual(e["data"]["attestation"]["exe"]["sha256"], sha256_of(SHIM))
        self.assertEqual(e["data"]["argv"], ["-sSL", "https://example.com/real"])
        # The record is the one the shim wrote to stderr.
        self.assertEqual(json.loads(r.stderr.splitlines()[0]), record_part(e["data"]))
        self.assert_verifies(c, 1)

    def test_the_sender_is_checked_when_it_connects_before_its_record_arrives(self):
        # The shim connects before it confines itself and builds its record;
        # the collector reads the kernel's facts about it at accept, so the
        # record, when it comes, waits only for validation and the sync.
        c = ListenCollector(self, shim=SHIM).start()
        trace = c.w.join("collector.trace")
        tracer = self.trace_collector(c, trace, "trace=accept4,readlink,recvfrom", string_limit=4096)
        box = self.container()
        r, logged = self.deny(c, box)
        self.assertEqual(logged, "")
        tracer.send_signal(signal.SIGINT)  # detaches
        tracer.wait(timeout=30)
        self.assertEqual(c.stop(), 0)
        (e,) = c.entries()
        self.assertEqual(e["event_type"], "command_denied")
        with open(trace, encoding="utf-8", errors="replace") as f:
            calls = [l for l in f.read().splitlines() if not l.startswith(("---", "+++"))]
        accepted = next(i for i, l in enumerate(calls) if re.search(r"accept4\(.*= \d+$", l))
        checked = next(i for i, l in enumerate(calls) if re.search(r'readlink\("/proc/\d+/exe"', l))
        received = next(i for i, l in enumerate(calls) if "https://example.com/real" in l)
        self.assertTrue(calls[received].split()[1].startswith("recvfrom("), calls[received])
        self.assertLess(accepted, checked, calls)
        self.assertLess(checked, received, calls)

    def test_the_real_shim_under_strace_is_a_forgery_and_falls_back_to_its_log(self):
        c = ListenCollector(self, shim=SHIM).start()
        box = self.container()
        r, logged = self.deny(c, box, *strace_argv(os.devnull))
        self.assertIn("https://example.com/real", logged)  # NAK: the log has it
        self.assertIn("not delivered", r.stderr)
        self.assertEqual(c.stop(), 0)
        (e,) = c.entries()
        self.assertEqual(e["event_type"], "denial_record_forged")
        self.assertEqual(e["data"]["reason"], "the sender runs under a tracer (TracerPid is not 0)")
        self.assertEqual(e["data"]["attestation"]["exe"]["sha256"], sha256_of(SHIM))


class MemoryOfTheSandboxUser(ListenBase):
    """A genuine shim is only as good as its memory: any process of the same
    user may rewrite a dumpable process's memory, with no tracer left for
    TracerPid to show (tests/memory_rewrite.py). The shim made unreadable to
    that user (as the image installs it, mode 0711) is made non-dumpable by
    the kernel at exec, and the rewrite is refused."""

    ATTACKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "memory_rewrite.py")

    def attack(self, mode):
        c = ListenCollector(self, shim=SHIM)
        # The sandbox user reaches the socket and the shim: the directory is
        # searchable (not listable) by others.
        os.chmod(c.w.path, 0o711)
        shim = c.w.join("agt-deny-shim")
        shutil.copyfile(SHIM, shim)
        os.chmod(shim, mode)
        os.symlink(shim, c.w.join("curl"))
        c.shim = shim
        c.start()
        box = self.container()

        def as_sandbox_user():
            box.enter()
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)

        env = {"PATH": "/usr/bin:/bin", "AGT_DENIED_SOCKET": c.socket,
               "AGT_DENIED_LOG": "/nonexistent/denied.log"}
        # The argument in the shim's memory is what the attack rewrites.
        r = subprocess.run(["/usr/bin/python3", self.ATTACKER, c.w.join("curl"), "rewritten",
                            "FORGED!!!", "https://example.com/rewritten"],
                           preexec_fn=as_sandbox_user,
                           capture_output=True, text=True, timeout=30, env=env)
        self.assertEqual(r.returncode, 0, r.stderr)
        outcome = json.loads(r.stdout.splitlines()[-1])
        self.assertEqual((outcome["tracer_pid"], outcome["status"]), (0, 126), outcome)
        self.assertEqual(c.stop(), 0)
        return outcome, c.entries()

    def test_a_shim_readable_by_its_user_is_rewritten_and_lands_as_a_forgery(self):
        outcome, entries = self.attack(0o755)
        self.assertEqual((outcome["patched"], outcome["refused"]), (True, None))
        (e,) = entries
        self.assertEqual(e["event_type"], "denial_record_forged")
        self.assertEqual(e["data"]["reason"],
                         "the sender's memory could be rewritten by any process of its user: the "
                         "kernel left it dumpable (install the shim unreadable to the sandbox user, "
                         "mode 0711)")
        att = e["data"]["attestation"]
        self.assertEqual((att["attested"], att["memory_protected"], att["uid"], att["tracer_pid"]),
                         (False, False, 65534, 0))
        # The rewrite, caught: the record says what the shim never saw.
        self.assertIn('"argv":["https://example.com/FORGED!!!"]', e["data"]["prefix"])

    def test_a_shim_unreadable_by_its_user_cannot_be_rewritten_and_is_attested(self):
        outcome, entries = self.attack(0o711)
        self.assertEqual((outcome["patched"], outcome["refused"]), (False, "EACCES"))
        (e,) = entries
        self.assertEqual(e["event_type"], "command_denied")
        self.assertEqual(e["data"]["argv"], ["https://example.com/rewritten"])
        att = e["data"]["attestation"]
        self.assertEqual((att["attested"], att["memory_protected"], att["uid"]), (True, True, 65534))


class ListenSetup(unittest.TestCase):
    def test_the_socket_is_made_fresh_with_mode_0666(self):
        c = ListenCollector(self)
        stale = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        stale.bind(c.socket)
        stale.close()  # a socket left behind by an earlier run
        c.start()
        st = os.lstat(c.socket)
        self.assertTrue(stat.S_ISSOCK(st.st_mode))
        self.assertEqual(stat.S_IMODE(st.st_mode), 0o666)
        self.assertEqual(c.stop(), 0)

    def test_anything_else_at_the_path_is_left_alone(self):
        c = ListenCollector(self)
        c.w.write("denied.sock", "operator's file")
        r = run_collector("run", "--key-file", c.w.key_file, "--out", c.out, "--listen", c.socket,
                          "--shim", SENDER)
        self.assertEqual(r.returncode, 73, r.stderr)
        self.assertIn("exists and is not a socket (not replaced)", r.stderr)
        with open(c.socket, encoding="utf-8") as f:
            self.assertEqual(f.read(), "operator's file")

    def test_usage(self):
        c = ListenCollector(self)
        base = ["run", "--key-file", c.w.key_file, "--out", c.out]
        r = run_collector(*base, "--listen", c.socket)
        self.assertEqual(r.returncode, 64)
        self.assertIn("--listen needs exactly one of --shim PATH and --shim-sha256 HEX", r.stderr)
        r = run_collector(*base, "--listen", c.socket, "--shim", SENDER, "--shim-sha256", "0" * 64)
        self.assertEqual(r.returncode, 64)
        r = run_collector(*base)
        self.assertEqual(r.returncode, 64)
        self.assertIn("--watch or --listen", r.stderr)
        r = run_collector(*base, "--watch", c.w.join("{sandbox_id}", "denied.log"),
                          "--state-dir", c.w.join("state"), "--alone-sync-under", "100")
        self.assertEqual(r.returncode, 64)
        self.assertIn("--alone-sync-under go with --listen", r.stderr)
        for bad in ["-1", "1000001", "2ms"]:
            r = run_collector(*base, "--listen", c.socket, "--shim", SENDER,
                              "--alone-sync-under", bad)
            self.assertEqual(r.returncode, 64, bad)
            self.assertIn('--alone-sync-under: "%s" is not a number of microseconds in 0..1000000'
                          % bad, r.stderr)
        r = run_collector(*base, "--listen", c.socket, "--shim-sha256", "xyz")
        self.assertEqual(r.returncode, 66)
        self.assertIn("is not 64 hex digits", r.stderr)

    def test_the_shim_named_by_its_hash_in_the_configuration(self):
        c = ListenCollector(self)
        config = c.w.write("config.json", json.dumps({
            "key_file": c.w.key_file, "output": c.out, "listen": c.socket,
            "shim_sha256": sha256_of(SENDER).upper()}))
        box = Container()
        self.addCleanup(box.close)
        proc = subprocess.Popen([run_collector.__globals__["COLLECTOR"], "run", "--config", config,
                                 "--syslog-socket", "none"], stderr=subprocess.PIPE, text=True)
        self.addCleanup(proc.kill)
        # No state_dir in this configuration: the start says the chain head is not kept.
        self.assertIn("no --state-dir: no chain head is kept", proc.stderr.readline())
        self.assertIn("listening on", proc.stderr.readline())
        r = box.run([SENDER, c.socket, record()])
        self.assertEqual(r.stdout, "ACK\n", r.stderr)
        proc.terminate()
        self.assertEqual(proc.wait(timeout=30), 0)
        proc.stderr.close()


class SignedLabels(unittest.TestCase):
    def test_verify_reports_an_entry_whose_labels_were_edited(self):
        c = ListenCollector(self)
        log = c.w.write("denied.log", record() + "\n" + record(argv=["two"]) + "\n")
        r = run_collector("import", "--key-file", c.w.key_file, "--out", c.out,
                          "--sandbox-id", "sb-7", log)
        self.assertEqual(r.returncode, 0, r.stderr)
        entries = c.entries()
        self.assertEqual(entries[0]["data"]["attestation"], {"attested": False})
        self.assertEqual(entries[0]["data"]["labels"]["sandbox_id"], "sb-7")
        with open(c.out, encoding="ascii") as f:
            lines = f.read().splitlines()
        edited = json.loads(lines[1])
        edited["sandbox_id"] = "sb-innocent"
        lines[1] = json.dumps(edited, sort_keys=True)
        # Upstream's verifier cannot see it: sandbox_id is outside the payload.
        self.assertEqual(upstream.verify_lines(lines, c.w.key)[:2], (True, 2))
        tampered = c.w.write("tampered.jsonl", "\n".join(lines) + "\n")
        r = run_collector("verify", "--key-file", c.w.key_file, tampered)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn(":2: field \"sandbox_id\" disagrees with its signed copy in data.labels",
                      r.stderr)


if __name__ == "__main__":
    unittest.main()
