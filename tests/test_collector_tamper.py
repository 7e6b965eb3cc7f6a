"""agt-collector run and verify --state-dir: a tampered audit file on the host.

The chain head in the state directory (entry count, last content_hash, file
identity) shows what a hash chain alone cannot: a cut tail, an emptied or a
replaced file. run refuses to extend a tampered file (exit 65) unless told to
start a new one (--new-chain), which it records as a signed entry.
"""
import os
import subprocess
import unittest

from run_harness import COLLECTOR, RunHarness

TAMPERED = 65  # agt-collector(1): run found the audit file tampered with


class TamperTest(unittest.TestCase):
    def setUp(self):
        self.h = RunHarness(self, sandboxes=["sb-1"], name="tamper")
        self.h.start()
        for _ in range(5):
            self.h.deny("sb-1")
        self.h.wait_expected()
        self.h.stop()
        with open(self.h.out, "rb") as f:
            self.text = f.read()
        self.lines = self.text.split(b"\n")[:-1]
        self.assertEqual(len(self.lines), 5)

    def rewrite(self, data):
        """Rewrites the audit file in place (same inode), as an intruder would."""
        with open(self.h.out, "r+b") as f:
            f.truncate(0)
            f.write(data)

    def run_collector(self, *extra):
        h = self.h
        return subprocess.run(
            [COLLECTOR, "run", "--key-file", h.key, "--out", h.out, "--state-dir", h.state,
             "--watch", h.pattern, "--syslog-socket", "none", "--no-append-only"] + list(extra),
            capture_output=True, text=True, timeout=60)

    def verify(self, with_state=True):
        args = [COLLECTOR, "verify", "--key-file", self.h.key]
        if with_state:
            args += ["--state-dir", self.h.state]
        return subprocess.run(args + [self.h.out], capture_output=True, text=True, timeout=60)

    def assert_refused(self, kind, line, offset=None):
        before = open(self.h.out, "rb").read()
        r = self.run_collector()
        self.assertEqual(r.returncode, TAMPERED, r.stderr)
        self.assertIn("tampered with: %s:" % kind, r.stderr)
        position = "first bad position: line %d, byte " % line
        self.assertIn(position + (str(offset) if offset is not None else ""), r.stderr)
        self.assertIn("refusing to extend it", r.stderr)
        self.assertEqual(open(self.h.out, "rb").read(), before, "a refused file is left as is")
        v = self.verify()
        self.assertEqual(v.returncode, 1, v.stdout + v.stderr)
        self.assertIn("tampered with: %s:" % kind, v.stderr)
        return r

    def test_intact_file_verifies_against_its_head(self):
        v = self.verify()
        self.assertEqual(v.returncode, 0, v.stderr)
        self.assertIn("5 entries, chain and signatures valid; the chain head", v.stdout)
        self.assertIn("(5 entries) matches", v.stdout)

    def test_tail_cut(self):
        kept = b"".join(l + b"\n" for l in self.lines[:3])
        self.rewrite(kept)
        # The chain alone cannot see it: plain verify passes.
        self.assertEqual(self.verify(with_state=False).returncode, 0)
        self.assert_refused("tail_cut", 4, len(kept))

    def test_emptied(self):
        self.rewrite(b"")
        self.assertEqual(self.verify(with_state=False).returncode, 0)
        self.assert_refused("emptied", 1, 0)

    def test_middle_entry_deleted(self):
        self.rewrite(b"".join(l + b"\n" for i, l in enumerate(self.lines) if i != 2))
        self.assert_refused("chain_broken", 3)

    def test_entries_reordered(self):
        order = [0, 3, 1, 2, 4]
        self.rewrite(b"".join(self.lines[i] + b"\n" for i in order))
        self.assert_refused("chain_broken", 2)

    def test_entry_edited(self):
        edited = list(self.lines)
        edited[3] = edited[3].replace(b'"outcome": "denied"', b'"outcome": "allowed"')
        self.assertNotEqual(edited[3], self.lines[3])
        self.rewrite(b"".join(l + b"\n" for l in edited))
        self.assert_refused("chain_broken", 4, sum(len(l) + 1 for l in self.lines[:3]))

    def test_replaced_by_a_copy(self):
        copy = self.h.out + ".copy"
        with open(copy, "wb") as f:
            f.write(self.text)
        os.chmod(copy, 0o600)
        os.rename(copy, self.h.out)
        self.assert_refused("replaced", 1, 0)

    def test_checkpointed_last_line_cut_in_half_is_kept(self):
        cut = self.text[:len(self.text) - len(self.lines[-1]) // 2 - 1]
        self.rewrite(cut)
        self.assert_refused("tail_cut", 5)
        self.assertEqual(open(self.h.out, "rb").read(), cut)

    def test_torn_line_past_the_head_is_cut_and_read_again(self):
        # A crash's torn write: bytes after the last durable entry.
        with open(self.h.out, "ab") as f:
            f.write(b'{"action": "exec", "agent_did": "did:agt:sand')
        self.assertEqual(self.verify().returncode, 0)
        self.h.deny("sb-1")
        self.h.start()
        self.h.finish()
        self.assertIn("no checkpoint covers it and its records are read again", self.h.stderr())

    def test_new_chain_moves_it_aside_and_records_the_finding(self):
        kept = b"".join(l + b"\n" for l in self.lines[:2])
        self.rewrite(kept)
        self.assert_refused("tail_cut", 3, len(kept))
        self.h.start("--new-chain")
        self.h.deny("sb-1")
        self.h.wait_for_count(1)
        self.h.stop()
        err = self.h.stderr()
        self.assertIn("moved to " + self.h.out + ".tampered-", err)
        aside = [n for n in os.listdir(self.h.dir) if n.startswith("audit.jsonl.tampered-")]
        self.assertEqual(len(aside), 1, aside)
        with open(os.path.join(self.h.dir, aside[0]), "rb") as f:
            self.assertEqual(f.read(), kept, "the tampered file is kept as it was found")
        entries = self.h.entries()
        first = entries[0]
        self.assertEqual(first["event_type"], "audit_file_tampered")
        self.assertEqual(first["data"]["finding"], "tail_cut")
        self.assertEqual(first["data"]["first_bad_line"], 3)
        self.assertEqual(first["data"]["first_bad_offset"], len(kept))
        self.assertEqual(first["data"]["chain_head"]["entries"], 5)
        self.assertEqual(first["data"]["found"]["entries_verified"], 2)
        self.assertEqual(first["data"]["moved_to"], os.path.join(self.h.dir, aside[0]))
        self.assertEqual([e["event_type"] for e in entries[1:]], ["command_denied"])
        self.h.assert_chain()
        v = self.verify()
        self.assertEqual(v.returncode, 0, v.stderr)
        self.assertIn("2 entries", v.stdout)

    def test_chain_head_edited_is_refused_then_recorded(self):
        head = os.path.join(self.h.state, "chain.head")
        with open(head, "r+b") as f:  # both slots: one alone is what a crash leaves
            for at in (0, 4096):
                f.seek(at)
                f.write(b"agt-collector chain head 2\nseq=1\ndev=1 ino=2 entries=x")
        r = self.run_collector()
        self.assertEqual(r.returncode, TAMPERED, r.stderr)
        self.assertIn("tampered with: chain_head_unreadable:", r.stderr)
        self.h.start("--new-chain")
        self.h.stop()
        [first] = self.h.entries()
        self.assertEqual(first["event_type"], "audit_file_tampered")
        self.assertEqual(first["data"]["finding"], "chain_head_unreadable")
        self.assertEqual(first["data"]["found"]["entries_verified"], 5)
        self.assertEqual(self.verify().returncode, 0)

    def test_chain_head_missing_is_said_and_kept_from_then_on(self):
        os.unlink(os.path.join(self.h.state, "chain.head"))
        self.h.deny("sb-1")
        self.h.start()
        self.h.wait_expected()
        self.h.stop()
        self.assertIn("chain.head does not exist", self.h.stderr())
        v = self.verify()
        self.assertEqual(v.returncode, 0, v.stderr)
        self.assertIn("6 entries", v.stdout)


if __name__ == "__main__":
    unittest.main()
