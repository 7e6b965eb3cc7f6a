"""agt-deny-shim: hundreds of concurrent denials sharing one stderr pipe and one
log, with no torn or lost line (issue points 3 and 4: one write() each)."""
import os
import subprocess
import threading

from shim_support import HUMAN_RE, SOCKET_WARNING_PREFIX, ShimTestCase, strict_json

DENIALS = 300


class Concurrency(ShimTestCase):

    def test_concurrent_denials_never_interleave(self):
        names = ["curl", "wget", "ssh", "git", "kubectl"]
        links = {n: self.sandbox.link(n) for n in names}
        log = self.sandbox.join("denied.log")
        # No collector: each denial's write holds its record, its human line
        # and the socket's warning, and the record goes to the log.
        no_socket = self.sandbox.join("absent.sock")
        r, w = os.pipe()
        chunks = []

        def drain():
            while True:
                data = os.read(r, 65536)
                if not data:
                    return
                chunks.append(data)

        reader = threading.Thread(target=drain)
        reader.start()
        procs = []
        for i in range(DENIALS):
            name = names[i % len(names)]
            # Each write close to the 4096-byte PIPE_BUF limit, to provoke tearing.
            args = ["%d-%s" % (i, "z" * 480)] * 8
            procs.append(subprocess.Popen([links[name]] + args, stdin=subprocess.DEVNULL,
                                          stdout=subprocess.DEVNULL, stderr=w,
                                          env={"AGT_DENIED_LOG": log, "AGT_DENIED_SOCKET": no_socket}))
        codes = [p.wait(timeout=120) for p in procs]
        os.close(w)
        reader.join(timeout=120)
        os.close(r)
        self.assertEqual(codes, [126] * DENIALS)

        lines = b"".join(chunks).split(b"\n")
        self.assertEqual(lines[-1], b"")
        lines = lines[:-1]
        self.assertEqual(len(lines), 3 * DENIALS)
        pids = set()
        for k in range(0, len(lines), 3):
            rec = strict_json(lines[k])  # a torn line would not parse
            self.assertValidRecord(rec, lines[k])
            m = HUMAN_RE.match(lines[k + 1].decode())
            self.assertIsNotNone(m, lines[k + 1][:200])
            self.assertEqual(m.group(1), rec["binary"])  # record and its human line together
            self.assertGreater(len(lines[k]), 3000)
            self.assertTrue(lines[k + 2].startswith(SOCKET_WARNING_PREFIX.encode()), lines[k + 2][:200])
            pids.add(rec["pid"])
        self.assertEqual(pids, {p.pid for p in procs})

        with open(log, "rb") as f:
            logged = f.read().split(b"\n")
        self.assertEqual(logged[-1], b"")
        # A denial that looks at the log's last byte while another's append
        # is in progress may put a needless newline before its record (man
        # page, THE DENIAL LOG): an empty line, never a torn or lost record.
        logged = [line for line in logged[:-1] if line]
        self.assertEqual(len(logged), DENIALS)
        log_pids = set()
        for line in logged:
            rec = strict_json(line)
            self.assertValidRecord(rec, line)
            log_pids.add(rec["pid"])
        self.assertEqual(log_pids, pids)
