"""Records made by the real static shim, imported and verified.

The shim runs through real symlinks under denied names, with hostile argv
(invalid UTF-8, control bytes, quotes, secrets, huge and numerous arguments);
its log is imported and the chain verified by agt-collector and by the
independent upstream re-implementation.
"""
import hashlib
import json
import os
import subprocess
import unittest

import collector_upstream_verifier as upstream
from collector_support import SHIM, Workdir, read_entries, record_part, run_collector

HOSTILE_ARGVS = [
    [b"-sSL", b"https://example.com/install.sh"],
    [b"\xff\xfe invalid utf-8 \xc0\x80", b"ctl\x01\x1f\x7f", b"tab\tnl\ncr\r"],
    [b'quote"back\\slash', "café 日本語 😀 \u2028".encode()],
    [b"--password=hunter2", b"-H", b"Authorization: Bearer abc.def.ghi",
     b"https://user:pw@example.com/"],
    [b"x" * 5000],
    [b"a"] * 3000,
    [b'{"event":"command_allowed"}', b"\n{\"binary\":\"evil\"}\n"],
    [],
]


class ShimRecords(unittest.TestCase):
    def setUp(self):
        # Fails (never skips) while the shim is not built: the check must be seen.
        self.assertTrue(os.access(SHIM, os.X_OK), "shim not built: %s" % SHIM)
        self.w = Workdir()
        self.bin = self.w.join("bin")
        os.mkdir(self.bin)
        for name in ("curl", "git", "kubectl"):
            os.symlink(SHIM, os.path.join(self.bin, name))
        self.log = self.w.join("sandboxes", "sb-9", "denied.log")
        os.makedirs(os.path.dirname(self.log))
        self.out = self.w.join("audit.jsonl")

    def tearDown(self):
        self.w.cleanup()

    def deny(self, name, argv):
        path = os.path.join(self.bin, name).encode()
        env = {"AGT_DENIED_LOG": self.log, "PATH": "/usr/bin:/bin"}
        r = subprocess.run([path] + argv, env=env, capture_output=True, timeout=30)
        self.assertEqual(r.returncode, 126, r.stderr[-500:])
        return r

    def test_hostile_argv_imported_and_verified(self):
        names = ["curl", "git", "kubectl"]
        for i, argv in enumerate(HOSTILE_ARGVS):
            self.deny(names[i % 3], argv)
        with open(self.log, "rb") as f:
            lines = f.read().splitlines()
        self.assertEqual(len(lines), len(HOSTILE_ARGVS))

        r = run_collector("validate", self.log)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = run_collector("import", "--key-file", self.w.key_file, "--out", self.out,
                          "--sandbox-id", "sb-9", self.log)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = run_collector("verify", "--key-file", self.w.key_file, self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(upstream.verify_file(self.out, self.w.key),
                         (True, len(HOSTILE_ARGVS), ""))

        entries = read_entries(self.out)
        with open(self.out, encoding="ascii") as f:  # ensure_ascii output
            text = f.read()
        for i, (entry, line) in enumerate(zip(entries, lines)):
            rec = json.loads(line)
            self.assertEqual(entry["resource"], names[i % 3])
            self.assertEqual(entry["data"]["binary"], names[i % 3])
            self.assertEqual(entry["sandbox_id"], "sb-9")
            # data holds the record's fields unchanged, plus the source.
            self.assertEqual(record_part(entry["data"]), rec)
            if "timestamp_ns" in rec:
                self.assertTrue(entry["timestamp"].startswith(rec["timestamp"][:19]))
        for secret in ("hunter2", "abc.def.ghi", "user:pw"):
            self.assertNotIn(secret, text)
        self.assertEqual(entries[6]["data"]["argv"][0], '{"event":"command_allowed"}')
        ids = {e["entry_id"] for e in entries}
        self.assertEqual(len(ids), len(entries))

    def test_upstream_and_shim_records_mixed_in_one_log(self):
        self.deny("curl", [b"https://example.com/"])
        with open(self.log, "a") as f:  # a line as upstream's Python shim writes it
            f.write(json.dumps({"event": "command_denied", "binary": "wget", "argv": ["x"],
                                "timestamp": "2026-06-14T10:00:00Z", "issue": 2662},
                               sort_keys=True, separators=(",", ":")) + "\n")
        self.deny("git", [b"push"])
        r = run_collector("import", "--key-file", self.w.key_file, "--out", self.out,
                          "--sandbox-id", "sb-9", self.log)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual([e["resource"] for e in read_entries(self.out)], ["curl", "wget", "git"])
        self.assertEqual(upstream.verify_file(self.out, self.w.key), (True, 3, ""))

    def test_entry_ids_are_the_documented_hash_and_survive_a_replay(self):
        for argv in HOSTILE_ARGVS[:4]:
            self.deny("curl", argv)
        r = run_collector("import", "--key-file", self.w.key_file, "--out", self.out,
                          "--sandbox-id", "sb-9", self.log)
        self.assertEqual(r.returncode, 0, r.stderr)
        entries = read_entries(self.out)
        self.assertEqual(len(entries), 4)
        # agt-audit-jsonl(5), ENTRY IDS: the payload's canonical text up to
        # the end of "data", SHA-256, the first 16 hex digits.
        for entry in entries:
            payload = json.dumps({k: entry[k] for k in upstream.PAYLOAD_FIELDS}, sort_keys=True)
            prefix = payload[:payload.index(', "entry_id": ')]
            self.assertTrue(prefix.endswith("}"), prefix[-40:])
            self.assertEqual(entry["entry_id"],
                             "audit_" + hashlib.sha256(prefix.encode()).hexdigest()[:16])
        # The same log imported into another audit file after another entry:
        # each line lands at another chain position, with the same id. (Into
        # the same file it would add nothing: import skips ids already there.)
        other_log = os.path.join(os.path.dirname(self.log), "other.log")
        with open(self.log, "rb") as f, open(other_log, "wb") as o:
            o.write(f.readline())
        other_out = self.out + ".other"
        for sandbox, log in (("sb-8", other_log), ("sb-9", self.log)):
            r = run_collector("import", "--key-file", self.w.key_file, "--out", other_out,
                              "--sandbox-id", sandbox, log)
            self.assertEqual(r.returncode, 0, r.stderr)
        again = read_entries(other_out)[1:]
        self.assertEqual([e["entry_id"] for e in again], [e["entry_id"] for e in entries])
        self.assertNotEqual([e["previous_hash"] for e in again],
                            [e["previous_hash"] for e in entries])
        self.assertEqual(upstream.verify_file(other_out, self.w.key), (True, 5, ""))


if __name__ == "__main__":
    unittest.main()
