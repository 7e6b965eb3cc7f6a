"""agt-collector run: the checkpoint's hash window. A log that holds its
append-only attribute as it is read is checkpointed with a SHA-256 of the
last 512 bytes before the offset (the kernel refuses the sandbox any
rewrite; the hash only tells the file from another that reused its inode),
any other with the last 4 KiB; the checkpoint records the length, and a
restart checks that many bytes and reads on from the offset."""
import os
import re
import unittest

from run_harness import RunHarness

RECORDS = 20  # well past 4 KiB of log


def hash_len(h, sandbox_id):
    text = h.read_checkpoint(sandbox_id).decode()
    return int(re.search(r"hash_len=(\d+)", text).group(1))


class RunHashWindowTest(unittest.TestCase):
    def test_an_append_only_log_is_checkpointed_over_512_bytes_and_resumed(self):
        h = RunHarness(self, name="hash-window", sandboxes=["sb-1"])
        h.start(append_only=True)
        for _ in range(RECORDS):
            h.deny("sb-1")
        h.wait_expected()
        h.wait_caught_up()
        self.assertIn("append-only: 1 of 1 log(s)", h.stderr())
        self.assertGreater(os.path.getsize(h.log_path("sb-1")), 4096)
        self.assertEqual(hash_len(h, "sb-1"), 512)
        h.stop()
        for _ in range(3):
            h.deny("sb-1")
        h.start(append_only=True)
        h.finish()
        # Resumed at the offset: the shorter hash matched, nothing was reread.
        err = h.stderr()
        self.assertNotIn("reading from offset 0", err)
        replayed = [int(n) for n in re.findall(r"\b(\d+) already present", err)]
        self.assertEqual(replayed, [0, 0], err)  # each run's stop line: none replayed
        self.assertEqual(hash_len(h, "sb-1"), 512)

    def test_a_log_without_the_attribute_keeps_the_4_kib_window(self):
        h = RunHarness(self, name="hash-window", sandboxes=["sb-1"])
        h.start()  # --no-append-only
        for _ in range(RECORDS):
            h.deny("sb-1")
        h.wait_expected()
        h.wait_caught_up()
        self.assertEqual(hash_len(h, "sb-1"), 4096)
        h.stop()
        # Rewritten within the last 4 KiB but before the last 512 bytes while
        # stopped: the 4 KiB window sees it.
        with open(h.log_path("sb-1"), "r+b") as f:
            data = f.read()
            at = len(data) - 2000
            f.seek(at)
            f.write(b"X")
        h.start()
        h.wait_until(lambda: "rewritten" in h.stderr(), "the rewrite is reported")


if __name__ == "__main__":
    unittest.main()
