"""agt-collector import / validate / verify / check-config, end to end.

Every output is checked twice: by `agt-collector verify` and by an
independent stdlib re-implementation of upstream's verifier
(collector_upstream_verifier.py), which is itself held to the golden vectors.
"""
import json
import os
import re
import subprocess
import unittest

import collector_upstream_verifier as upstream
from collector_support import (COLLECTOR, VECTORS, Workdir, read_entries, record,
                               record_part, run_collector)
from seeded_random import seeded_random


def read_vectors():
    with open(os.path.join(VECTORS, "key.bin"), "rb") as f:
        key = f.read()
    with open(os.path.join(VECTORS, "input.jsonl"), encoding="utf-8") as f:
        inputs = [json.loads(line) for line in f]
    with open(os.path.join(VECTORS, "expected.jsonl"), encoding="utf-8") as f:
        expected = f.read().splitlines()
    return key, inputs, expected


class UpstreamReimplementation(unittest.TestCase):
    def test_reproduces_upstream_expected_jsonl(self):
        key, inputs, expected = read_vectors()
        self.assertEqual(upstream.write_chain(inputs, key), expected)

    def test_verifies_vectors_and_catches_tampering(self):
        key, _, expected = read_vectors()
        self.assertEqual(upstream.verify_lines(expected, key), (True, 6, ""))
        tampered = list(expected)
        tampered[3] = tampered[3].replace('"ssh"', '"scp"', 1)
        self.assertEqual(upstream.verify_lines(tampered, key)[:2], (False, 4))
        self.assertEqual(upstream.verify_lines(expected, b"other")[:2], (False, 1))

    def test_collector_verify_accepts_the_vectors(self):
        r = run_collector("verify", "--key-file", os.path.join(VECTORS, "key.bin"),
                          os.path.join(VECTORS, "expected.jsonl"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("6 entries", r.stdout)


class Import(unittest.TestCase):
    def setUp(self):
        self.w = Workdir()
        self.out = self.w.join("audit.jsonl")

    def tearDown(self):
        self.w.cleanup()

    def import_(self, *logs, sandbox="sb-7", extra=()):
        return run_collector("import", "--key-file", self.w.key_file, "--out", self.out,
                             "--sandbox-id", sandbox, *extra, *logs)

    def assert_verifies(self, count):
        r = run_collector("verify", "--key-file", self.w.key_file, self.out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("%d entries" % count, r.stdout)
        self.assertEqual(upstream.verify_file(self.out, self.w.key), (True, count, ""))

    def test_import_maps_records_and_verifies(self):
        upstream_only = json.dumps({"argv": ["clone", "x"], "binary": "git", "event": "command_denied",
                                    "issue": 2662, "timestamp": "2026-12-31T23:59:59Z"},
                                   sort_keys=True, separators=(",", ":"))
        log = self.w.write("denied.log", record() + "\n" + upstream_only + "\n")
        r = self.import_(log)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_verifies(2)
        first, second = read_entries(self.out)
        self.assertEqual(first["timestamp"], "2026-06-14T10:00:00.123456+00:00")
        self.assertEqual(second["timestamp"], "2026-12-31T23:59:59+00:00")
        for e in (first, second):
            self.assertEqual((e["event_type"], e["action"], e["outcome"], e["policy_decision"],
                              e["matched_rule"]),
                             ("command_denied", "exec", "denied", "deny", "command_denylist"))
            self.assertEqual((e["sandbox_id"], e["agent_did"]), ("sb-7", "did:agt:sandbox:sb-7"))
            self.assertIsNone(e["target_did"])
            self.assertIsNone(e["trace_id"])
            self.assertRegex(e["entry_id"], r"^audit_[0-9a-f]{16}$")
        self.assertEqual(first["resource"], "curl")
        self.assertEqual(second["resource"], "git")
        st = os.stat(log)
        self.assertEqual(first["data"]["source"],
                         {"file": log, "offset": 0, "device": st.st_dev, "inode": st.st_ino})
        self.assertEqual(second["data"]["source"]["offset"], len(record()) + 1)
        self.assertEqual(second["data"]["argv"], ["clone", "x"])
        self.assertEqual(first["data"]["pid"], 7)
        self.assertEqual(os.stat(self.out).st_mode & 0o777, 0o600)

    def test_output_lines_are_exactly_pythons_json_dumps(self):
        # Property test of the canonical serialiser: random strings from every
        # code point class, compared byte for byte with json.dumps(sort_keys=True).
        rng = seeded_random(self, 2662)
        classes = [(0x20, 0x7e), (0x00, 0x1f), (0x7f, 0x9f), (0xa0, 0x7ff), (0x800, 0xd7ff),
                   (0xe000, 0xfffd), (0x2028, 0x2029), (0x10000, 0x10ffff), (0x22, 0x22),
                   (0x5c, 0x5c)]
        lines = []
        for _ in range(300):
            argv = ["".join(chr(rng.randint(*rng.choice(classes))) for _ in range(rng.randint(0, 12)))
                    for _ in range(rng.randint(0, 5))]
            lines.append(record(argv=argv, host="".join(chr(rng.randint(*rng.choice(classes)))
                                                          for _ in range(6))))
        log = self.w.write("denied.log", "\n".join(lines) + "\n")
        r = self.import_(log)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(self.out, encoding="ascii") as f:
            out_lines = f.read().splitlines()
        self.assertEqual(len(out_lines), 300)
        for line, src in zip(out_lines, lines):
            entry = json.loads(line)
            self.assertEqual(line, json.dumps(entry, sort_keys=True))
            self.assertEqual(entry["data"]["argv"], json.loads(src)["argv"])
        self.assert_verifies(300)

    def test_mutated_records_accepted_only_as_json_loads_reads_them(self):
        # Differential: random byte-level mutations of good records (hostile
        # escapes, bad UTF-8, numbers Python reads differently). Every line
        # accepted must be JSON to Python too, with exactly the data the
        # entry holds; every other line is reported; the chain verifies.
        rng = seeded_random(self, 2662)
        bases = [record().encode(),
                 record(argv=["\u00e9\u2028", "\\/x", "a\x00b"], host="h\U0001f600").encode(),
                 json.dumps(json.loads(record()), sort_keys=True, separators=(",", ":")).encode()]
        pieces = [b'"', b"\\", b"\\u0000", b"\\ud83d", b"\\ude00", b"\\/", b"0", b"-0", b"1e3",
                  b".5", b"{", b"}", b"[", b"]", b",", b":", b" ", b"\xed\xa0\x80", b"\xc0\xaf",
                  b"\xef\xbf\xbe", b"\xf4\x8f\xbf\xbf", b"\xf4\x90\x80\x80", b"\r", b"\t", b"null",
                  b"true", b'"argv"', b'"pid"', b"18446744073709551616", b"18446744073709551615",
                  b"\xef\xbb\xbf", b"\x00"]
        lines = []
        for _ in range(6000):
            line = bytearray(rng.choice(bases))
            for _ in range(rng.randint(1, 3)):
                op, at = rng.random(), rng.randrange(len(line) + 1)
                if op < 0.35:
                    line[at:at] = rng.choice(pieces)
                elif op < 0.55:
                    del line[at:at + rng.randint(1, 3)]
                elif op < 0.75 and at < len(line):
                    line[at] = rng.randrange(256)
                else:
                    src = rng.randrange(len(line) + 1)
                    line[at:at] = line[src:src + rng.randint(1, 8)]
            lines.append(bytes(line).replace(b"\n", b" "))
        log = self.w.write("denied.log", b"".join(l + b"\n" for l in lines))
        r = self.import_(log)
        self.assertEqual(r.returncode, 65, r.stderr[-500:])
        rejected = {int(l.split(":")[1]) for l in r.stderr.splitlines() if l.startswith(log + ":")}
        accepted = [n for n in range(1, len(lines) + 1) if n not in rejected]
        entries = read_entries(self.out)
        self.assertEqual(len(entries), len(accepted))
        self.assertGreater(len(accepted), 100)  # the mutations leave enough valid lines
        for number, entry in zip(accepted, entries):
            source = json.loads(lines[number - 1].decode("utf-8"))  # raises if not JSON
            self.assertEqual(json.dumps(record_part(entry["data"]), sort_keys=True),
                             json.dumps(source, sort_keys=True), number)
        self.assert_verifies(len(accepted))

    def test_escaped_and_raw_spellings_give_the_same_data(self):
        # Upstream's Python shim writes with ensure_ascii (\uXXXX escapes);
        # others write raw UTF-8 or escape "/" as "\/". One record, three
        # spellings: the same data, byte for byte, as json.dumps gives it.
        rng = seeded_random(self, 5)
        classes = [(0x20, 0x7e), (0x00, 0x1f), (0x7f, 0x9f), (0xa0, 0x7ff), (0x800, 0xd7ff),
                   (0xe000, 0xffff), (0x10000, 0x10ffff), (0x2f, 0x2f)]
        spellings = []
        for _ in range(100):
            argv = ["".join(chr(rng.randint(*rng.choice(classes))) for _ in range(rng.randint(0, 9)))
                    for _ in range(rng.randint(1, 4))]
            rec = json.loads(record(argv=argv, path="/usr/bin/curl"))
            raw = json.dumps(rec, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            ascii_ = json.dumps(rec, sort_keys=True, separators=(",", ":"))
            spellings.append((raw, ascii_, ascii_.replace("/", "\\/")))
        log = self.w.write("denied.log", "".join(s + "\n" for group in spellings for s in group))
        r = self.import_(log)
        self.assertEqual(r.returncode, 0, r.stderr)
        entries = read_entries(self.out)
        self.assertEqual(len(entries), 300)
        with open(self.out, encoding="ascii") as f:
            out_lines = f.read().splitlines()
        for n, (raw, _, _) in enumerate(spellings):
            datas = []
            for k in range(3):
                entry = entries[3 * n + k]
                self.assertEqual(out_lines[3 * n + k], json.dumps(entry, sort_keys=True))
                datas.append(json.dumps(record_part(entry["data"]), sort_keys=True))
            self.assertEqual(datas[0], datas[1])
            self.assertEqual(datas[0], datas[2])
            self.assertEqual(json.loads(datas[0]), json.loads(raw))
        self.assert_verifies(300)

    def test_rejected_lines_are_reported_and_the_rest_imported(self):
        bad = [
            b'{"argv":[],"binary":"git","event":"command_denied","issue":2662}',
            b'{"argv":[],"binary":"git","event":"command_denied","issue":2662,"timestamp":"2026-02-30T00:00:00Z"}',
            b'\xff\xfe',
            b'{"argv":[],"binary":"git","binary":"git","event":"command_denied","issue":2662,"timestamp":"2026-06-14T10:00:00Z"}',
            record(extra=1).encode(),
            b"x" * 70000,
        ]
        good = record().encode()
        data = b"\n".join([good] + bad + [good]) + b"\n"
        log = self.w.write("denied.log", data)
        r = self.import_(log)
        self.assertEqual(r.returncode, 65, r.stderr)
        reported = [line for line in r.stderr.splitlines() if line.startswith(log + ":")]
        self.assertEqual([line.split(":")[1] for line in reported], ["2", "3", "4", "5", "6", "7"])
        self.assertIn('missing key "timestamp"', reported[0])
        self.assertIn("timestamp", reported[1])
        self.assertIn("UTF-8", reported[2])
        self.assertIn('duplicate key "binary"', reported[3])
        self.assertIn('unknown key "extra"', reported[4])
        self.assertIn("line longer than the limit (", reported[5])
        self.assertIn(" bytes, limit 65536)", reported[5])
        self.assert_verifies(2)
        offsets = [e["data"]["source"]["offset"] for e in read_entries(self.out)]
        self.assertEqual(offsets, [0, len(data) - len(good) - 1])

    def test_labels_never_come_from_the_record(self):
        """A sandbox cannot name itself another sandbox, agent or environment."""
        labels = ("sandbox_id", "agent_did", "environment", "compute_driver", "session_id",
                  "outcome", "source")
        log = self.w.write("denied.log", "".join(
            record(**{name: "victim"}) + "\n" for name in labels) +
            record(argv=["--sandbox-id", "victim", '"sandbox_id":"victim"']) + "\n")
        r = self.import_(log)
        self.assertEqual(r.returncode, 65, r.stderr)
        for number, name in enumerate(labels, 1):
            self.assertIn('%s:%d: unknown key "%s"' % (log, number, name), r.stderr)
        self.assert_verifies(1)
        (entry,) = read_entries(self.out)
        self.assertEqual((entry["sandbox_id"], entry["agent_did"], entry["environment"],
                          entry["compute_driver"], entry["session_id"], entry["outcome"]),
                         ("sb-7", "did:agt:sandbox:sb-7", None, None, None, "denied"))
        self.assertEqual(entry["data"]["source"]["file"], log)

    def test_validate_reports_without_writing(self):
        log = self.w.write("denied.log", record() + "\n" + record(event="other") + "\n")
        r = run_collector("validate", log)
        self.assertEqual(r.returncode, 65)
        self.assertIn(log + ':2: key "event" is not "command_denied"', r.stderr)
        self.assertFalse(os.path.exists(self.out))
        good = self.w.write("good.log", record() + "\n")
        self.assertEqual(run_collector("validate", good).returncode, 0)

    def test_chain_resumes_across_imports_and_ids_are_deterministic(self):
        log = self.w.write("denied.log", record() + "\n" + record(pid=8) + "\n")
        self.assertEqual(self.import_(log).returncode, 0)
        first = [e["entry_id"] for e in read_entries(self.out)]
        self.assertNotEqual(first[0], first[1])
        # Same line, same file, same offset: the same id, in another output too.
        other = self.out
        self.out = self.w.join("other.jsonl")
        self.assertEqual(self.import_(log).returncode, 0)
        self.assertEqual([e["entry_id"] for e in read_entries(self.out)], first)
        self.out = other
        # The log grew: imported again, only the new record is written.
        with open(log, "a") as f:
            f.write(record(pid=9) + "\n")
        r = self.import_(log)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("3 lines, 1 entries written, 2 already present, 0 rejected", r.stderr)
        self.assert_verifies(3)
        ids = [e["entry_id"] for e in read_entries(self.out)]
        self.assertEqual(ids[:2], first)
        self.assertEqual(len(set(ids)), 3)

    def test_a_log_imported_twice_is_written_once(self):
        log = self.w.write("denied.log", record() + "\n" + record(pid=8) + "\n")
        r = self.import_(log, log)  # twice in one run
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("4 lines, 2 entries written, 2 already present, 0 rejected", r.stderr)
        r = self.import_(log)  # and again
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("2 lines, 0 entries written, 2 already present, 0 rejected", r.stderr)
        self.assert_verifies(2)

    def test_torn_last_line_is_cut_and_a_corrupt_one_refused(self):
        log = self.w.write("denied.log", record() + "\n")
        self.assertEqual(self.import_(log).returncode, 0)
        with open(self.out, "rb") as f:
            good = f.read()
        with open(self.out, "ab") as f:  # a write cut short by a crash
            f.write(good[:200])
        r = self.import_(log)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("warning: import: %s: removed 200 bytes of an incomplete last line" % self.out,
                      r.stderr)
        self.assertIn("1 lines, 0 entries written, 1 already present", r.stderr)
        self.assert_verifies(1)
        with open(self.out, "ab") as f:  # a complete line that is no entry
            f.write(b'{"forged": true}\n')
        with open(self.out, "rb") as f:
            before = f.read()
        r = self.import_(log)
        self.assertEqual(r.returncode, 74)
        self.assertIn("cannot resume the chain", r.stderr)
        with open(self.out, "rb") as f:
            self.assertEqual(f.read(), before)  # untouched

    def test_refuses_a_file_signed_with_another_key(self):
        log = self.w.write("denied.log", record() + "\n")
        self.assertEqual(self.import_(log).returncode, 0)
        other = self.w.write("other.key", os.urandom(32), 0o600)
        r = run_collector("import", "--key-file", other, "--out", self.out, "--sandbox-id", "x", log)
        self.assertEqual(r.returncode, 74)
        self.assertIn("signature does not match", r.stderr)

    def test_verify_names_the_first_broken_line(self):
        log = self.w.write("denied.log", "".join(record(pid=p) + "\n" for p in range(5)))
        self.assertEqual(self.import_(log).returncode, 0)
        with open(self.out) as f:
            lines = f.readlines()
        lines[2] = lines[2].replace('"pid": 2', '"pid": 9')
        with open(self.out, "w") as f:
            f.writelines(lines)
        r = run_collector("verify", "--key-file", self.w.key_file, self.out)
        self.assertEqual(r.returncode, 1)
        self.assertIn(self.out + ":3: content_hash", r.stderr)
        self.assertEqual(upstream.verify_file(self.out, self.w.key)[:2], (False, 3))
        del lines[2]  # a removed entry breaks the link
        with open(self.out, "w") as f:
            f.writelines(lines)
        r = run_collector("verify", "--key-file", self.w.key_file, self.out)
        self.assertEqual(r.returncode, 1)
        self.assertIn(":3: previous_hash", r.stderr)
        r = run_collector("verify", "--key-file", self.w.key_file, self.w.join("missing.jsonl"))
        self.assertEqual(r.returncode, 66)
        self.assertIn("agt-collector: error: verify: open ", r.stderr)

    def test_verify_rejects_every_edit_upstream_rejects(self):
        """Edits of a signed file, judged by agt-collector verify and by upstream's logic.

        verify must never accept what upstream rejects. It is stricter in one
        documented way: duplicate keys, which json.loads resolves to the last
        value (so a reader taking the first one would be shown a forged value).
        """
        log = self.w.write("denied.log", "".join(record(pid=p) + "\n" for p in range(4)))
        self.assertEqual(self.import_(log).returncode, 0)
        with open(self.out, "rb") as f:
            lines = f.read().split(b"\n")[:-1]
        second = lines[1]
        edits = {
            # name: (the file's lines, upstream accepts?)
            "NUL and junk after a line": (lines[:1] + [second + b"\0junk"] + lines[2:], False),
            "a forged middle line": (lines[:1] + [second.replace(b'"pid": 1', b'"pid": 5')] +
                                     lines[2:], False),
            "two lines swapped": ([lines[1], lines[0]] + lines[2:], False),
            "a line removed": (lines[:1] + lines[2:], False),
            "the first line removed": (lines[1:], False),
            "a truncated last line": (lines[:-1] + [lines[-1][:-7]], False),
            "an extra key": (lines[:1] + [second[:-1] + b', "x": 1}'] + lines[2:], False),
            "a blank line": (lines[:1] + [b""] + lines[1:], False),
            "a duplicate key after the real one": (
                lines[:1] + [second[:-1] + b', "outcome": "allowed"}'] + lines[2:], False),
            "a duplicate key before the real one": (
                lines[:1] + [second.replace(b"{", b'{"outcome": "allowed", ', 1)] + lines[2:], True),
            "a duplicate key inside data": (
                lines[:1] + [second.replace(b'"data": {', b'"data": {"argv": ["x"], ', 1)] +
                lines[2:], True),
            # Document::Parse skips a BOM byte by byte: "\xbb995" read as 995.
            "a stray 0xEF before a line": (lines[:1] + [b"\xef" + second] + lines[2:], False),
            "a stray 0xBB before a line": (lines[:1] + [b"\xbb" + second] + lines[2:], False),
            "a stray 0xBF before a line": (lines[:1] + [b"\xbf" + second] + lines[2:], False),
            "a BOM before a line": (lines[:1] + [b"\xef\xbb\xbf" + second] + lines[2:], False),
        }
        edited = self.w.join("edited.jsonl")
        for name, (edited_lines, upstream_accepts) in edits.items():
            with self.subTest(edit=name):
                with open(edited, "wb") as f:
                    f.write(b"".join(l + b"\n" for l in edited_lines))
                self.assertEqual(upstream.verify_file(edited, self.w.key)[0], upstream_accepts)
                r = run_collector("verify", "--key-file", self.w.key_file, edited)
                self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
                self.assertRegex(r.stderr, r"^agt-collector: verify: %s:[1-4]: " % re.escape(edited))
        # Whitespace around a line is no edit of its content, for upstream or for verify.
        with open(edited, "wb") as f:
            f.write(b"".join(b" " + l + b" \t\n" for l in lines))
        self.assertEqual(upstream.verify_file(edited, self.w.key), (True, 4, ""))
        self.assertEqual(run_collector("verify", "--key-file", self.w.key_file, edited).returncode, 0)

    def test_symlinked_or_missing_log_is_refused(self):
        target = self.w.write("secret", record() + "\n")
        link = self.w.join("denied.log")
        os.symlink(target, link)
        r = self.import_(link)
        self.assertEqual(r.returncode, 66)
        self.assertIn("symbolic link", r.stderr)
        r = self.import_(self.w.join("missing.log"))
        self.assertEqual(r.returncode, 66)
        fifo = self.w.join("fifo.log")
        os.mkfifo(fifo)
        r = self.import_(fifo)
        self.assertEqual(r.returncode, 66)
        self.assertIn("not a regular file", r.stderr)

    def test_usage_errors(self):
        log = self.w.write("denied.log", record() + "\n")
        for args in (["import", "--out", self.out, "--sandbox-id", "a", log],
                     ["import", "--key-file", self.w.key_file, "--out", self.out, log],
                     ["import", "--key-file", self.w.key_file, "--out", self.out, "--sandbox-id", "../x", log],
                     ["import", "--key-fil", "k"],
                     ["verify", self.out],
                     ["frobnicate"],
                     []):
            r = run_collector(*args)
            self.assertEqual(r.returncode, 64, (args, r.stderr))
            self.assertTrue(r.stderr.startswith("agt-collector: error:") or "usage:" in r.stderr,
                            r.stderr)
        r = run_collector("import", "--key-fil", "k")
        self.assertIn("did you mean --key-file?", r.stderr)

    def test_empty_key_file_is_refused_and_never_echoed(self):
        empty = self.w.write("empty.key", b"", 0o600)
        log = self.w.write("denied.log", record() + "\n")
        r = run_collector("import", "--key-file", empty, "--out", self.out, "--sandbox-id", "a", log)
        self.assertEqual(r.returncode, 66)
        self.assertIn("is empty", r.stderr)
        r = self.import_(log)
        self.assertNotIn(self.w.key.hex(), r.stderr + r.stdout)
        self.assertNotIn("warning", r.stderr)  # 32 random bytes, mode 0600

    def test_an_unusable_key_file_is_status_66_for_every_command(self):
        # import, verify and run agree (agt-collector(1), EXIT STATUS).
        log = self.w.write("denied.log", record() + "\n")
        self.assertEqual(self.import_(log).returncode, 0)
        empty = self.w.write("empty.key", b"", 0o600)
        missing = self.w.join("missing.key")
        pattern = self.w.join("sandboxes", "{sandbox_id}", "denied.log")
        for key, says in ((empty, "is empty"), (missing, "open key file")):
            for args in (["import", "--key-file", key, "--out", self.out, "--sandbox-id", "a", log],
                         ["verify", "--key-file", key, self.out],
                         ["run", "--key-file", key, "--out", self.out, "--state-dir",
                          self.w.join("state"), "--watch", pattern, "--syslog-socket", "none"]):
                with self.subTest(command=args[0], key=says):
                    r = run_collector(*args, timeout=20)
                    self.assertEqual(r.returncode, 66, r.stderr)
                    self.assertIn("agt-collector: error: ", r.stderr)
                    self.assertIn(says, r.stderr)

    def test_run_warns_about_a_key_others_can_read(self):
        weak = self.w.write("weak.key", b"hunter2-hunter2", 0o640)
        pattern = self.w.join("sandboxes", "{sandbox_id}", "denied.log")
        proc = subprocess.Popen([COLLECTOR, "run", "--key-file", weak, "--out", self.out,
                                 "--state-dir", self.w.join("state"), "--watch", pattern,
                                 "--syslog-socket", "none"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        said = ""
        try:
            for line in proc.stderr:  # up to the start-up line, or EOF if it exited
                said += line
                if line.startswith("agt-collector: run: "):
                    break
        finally:
            proc.terminate()
            said += proc.communicate(timeout=20)[1]
        self.assertEqual(proc.returncode, 0, said)
        self.assertIn("agt-collector: run: ", said)
        self.assertIn("agt-collector: warning: run: key file %s has mode 0640" % weak, said)
        self.assertIn("holds 15 bytes", said)
        self.assertNotIn("hunter2", said)

    def test_import_warns_about_a_key_others_can_read(self):
        weak = self.w.write("weak.key", b"hunter2-hunter2", 0o644)
        log = self.w.write("denied.log", record() + "\n")
        r = run_collector("import", "--key-file", weak, "--out", self.out, "--sandbox-id", "a", log)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("agt-collector: warning: import: key file %s has mode 0644: readable or writable by "
                      "group/others" % weak, r.stderr)
        self.assertIn("agt-collector: warning: import: key file %s holds 15 bytes" % weak, r.stderr)
        self.assertNotIn("hunter2", r.stderr + r.stdout)
        self.assertEqual(upstream.verify_file(self.out, b"hunter2-hunter2"), (True, 1, ""))

    def test_help_and_version(self):
        r = run_collector("--help")
        self.assertEqual(r.returncode, 0)
        for name in ("import", "validate", "verify", "check-config"):
            self.assertIn(name, r.stdout)
        r = run_collector("import", "--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("--sandbox-id ID", r.stdout)
        r = run_collector("--version")
        self.assertRegex(r.stdout, r"^agt-collector \d+\.\d+\.\d+\n$")


    def test_every_command_help_prints_its_option_table(self):
        options = {"import": ["--key-file K", "--out FILE", "--sandbox-id ID", "--config C"],
                   "validate": ["--config C"],
                   "verify": ["--key-file K", "--state-dir DIR", "--drop-duplicates"],
                   "check-config": ["--keys"],
                   "run": ["--key-file K", "--out FILE", "--state-dir DIR", "--watch PATTERN...",
                           "--listen PATH", "--shim PATH", "--shim-sha256 HEX",
                           "--cgroup-pattern REGEX", "--alone-sync-under US", "--config C",
                           "--syslog-socket PATH",
                           "--scan-interval MS", "--new-chain", "--no-append-only",
                           "--forward URL", "--forward-ca FILE", "--forward-cert FILE",
                           "--forward-key FILE", "--forward-format F",
                           "--metrics-file PATH", "--metrics-interval SECONDS"],
                   "forward": ["--out FILE", "--state-dir DIR", "--config C", "--destination NAME",
                               "--forward URL", "--forward-ca FILE", "--forward-cert FILE",
                               "--forward-key FILE", "--forward-format F", "--until-caught-up",
                               "--supervisor-pid PID"],
                   "export": ["--format F"],
                   "status": ["--state-dir DIR"]}
        for command, rows in options.items():
            for flag in ("--help", "-h"):
                r = run_collector(command, flag)
                self.assertEqual(r.returncode, 0, (command, r.stderr))
                self.assertEqual(r.stderr, "", command)  # run: no daemon started
                self.assertTrue(r.stdout.startswith("usage: agt-collector %s " % command), r.stdout)
                self.assertIn("\noptions:\n", r.stdout, command)
                table = r.stdout.split("\noptions:\n", 1)[1]
                for row in rows:
                    self.assertRegex(table, r"(?m)^  %s +\S" % re.escape(row), (command, row))
                self.assertEqual(len(table.splitlines()), len(rows), (command, table))
        # run's table is the one its usage errors print (one table, two uses)
        r = run_collector("run", "--help")
        self.assertIn("with an inotify watch are checked every 10th scan", r.stdout)
        bad = run_collector("run", "--bogus", "1")
        self.assertEqual(bad.returncode, 64)
        self.assertEqual(bad.stderr.split("\noptions:\n", 1)[1], r.stdout.split("\noptions:\n", 1)[1])


class Config(unittest.TestCase):
    def setUp(self):
        self.w = Workdir()

    def tearDown(self):
        self.w.cleanup()

    def config(self, obj, mode=0o600):
        return self.w.write("collector.json", json.dumps(obj, indent=2), mode)

    def test_valid_config_and_labels_from_a_pattern(self):
        out = self.w.join("audit.jsonl")
        log = self.w.write("sandboxes/sb-42/denied.log", record() + "\n")
        cfg = self.config({
            "output": out, "key_file": self.w.key_file, "state_dir": self.w.join("state"),
            "watch": [self.w.join("other", "{sandbox_id}", "denied.log")],
            "sources": [{"pattern": self.w.join("sandboxes", "{sandbox_id}", "denied.log"),
                         "environment": "prod", "compute_driver": "docker",
                         "session_id": None, "agent_did": "did:agt:agent:{sandbox_id}"}],
            "limits": {"max_line_size": "64KiB", "max_argv_entries": 100, "max_argv_size": 8192},
        })
        r = run_collector("check-config", cfg)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("valid", r.stdout)
        r = run_collector("import", "--config", cfg, log)
        self.assertEqual(r.returncode, 0, r.stderr)
        (e,) = read_entries(out)
        self.assertEqual((e["sandbox_id"], e["agent_did"], e["environment"], e["compute_driver"],
                          e["session_id"]),
                         ("sb-42", "did:agt:agent:sb-42", "prod", "docker", None))
        self.assertEqual(upstream.verify_file(out, self.w.key), (True, 1, ""))

    def test_unknown_key_names_its_path_with_a_hint(self):
        cfg = self.config({"sources": [{"path": "/x/denied.log", "sandbox_id": "a",
                                        "enviroment": "prod"}]})
        r = run_collector("check-config", cfg)
        self.assertEqual(r.returncode, 78)
        self.assertIn('sources[0].enviroment: unknown key (did you mean "environment"?)', r.stderr)
        cfg = self.config({"limit": {}})
        r = run_collector("check-config", cfg)
        self.assertIn('limit: unknown key (did you mean "limits"?)', r.stderr)

    def test_sizes_need_explicit_units(self):
        for value, ok in (("1MiB", True), ("1MB", True), ("4096", True), (4096, True),
                          ("1M", False), ("1 MiB", False), ("-1", False), (1.5, False)):
            cfg = self.config({"limits": {"max_line_size": value}})
            r = run_collector("check-config", cfg)
            self.assertEqual(r.returncode, 0 if ok else 78, (value, r.stderr))
        cfg = self.config({"limits": {"max_line_size": "1M"}})
        self.assertIn("KiB/MiB/GiB", run_collector("check-config", cfg).stderr)

    def test_semantic_errors(self):
        for obj, needle in (
                ({"sources": [{"path": "/x"}]}, "needs \"sandbox_id\""),
                ({"sources": [{"path": "/x", "pattern": "/{sandbox_id}/l", "sandbox_id": "a"}]},
                 "exactly one of"),
                ({"watch": ["/var/log/{sandbox_id}x/denied.log"]}, "whole path component"),
                ({"watch": ["relative/{sandbox_id}/denied.log"]}, "absolute"),
                ({"output": 3}, "output: expected a string")):
            r = run_collector("check-config", self.config(obj))
            self.assertEqual(r.returncode, 78, obj)
            self.assertIn(needle, r.stderr)
        bad = self.w.write("bad.json", '{"output": "x",\n "key_file": }')
        r = run_collector("check-config", bad)
        self.assertEqual(r.returncode, 78)
        self.assertIn("bad.json:2:", r.stderr)

    def test_lint_warnings(self):
        short = self.w.write("short.key", b"0123456789", 0o644)
        cfg = self.config({"key_file": short}, mode=0o666)
        r = run_collector("check-config", cfg)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("writable by group/others", r.stderr)
        self.assertIn("readable or writable by group/others", r.stderr)
        self.assertIn("holds 10 bytes", r.stderr)
        self.assertNotIn("0123456789", r.stderr)

    def test_keys_table(self):
        r = run_collector("check-config", "--keys")
        self.assertEqual(r.returncode, 0)
        for key in ("output", "key_file", "state_dir", "watch", "sources[].environment",
                    "limits.max_line_size"):
            self.assertIn(key, r.stdout)


if __name__ == "__main__":
    unittest.main()
