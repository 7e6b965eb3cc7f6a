"""agt-collector run: a sandbox racing the creation of its append-only log.

The collector creates a new sandbox's log, gives it to the sandbox user
(chown) and only then sets FS_APPEND_FL (a chown of an append-only file is
refused). In between, the sandbox, which can write its directory, can take
the new file away (rename or unlink) and put a file of its own at the name.
Here that window is made wide on purpose: strace delays the collector's
first ioctl on the new log by a few seconds, and a racer running as the
sandbox user (uid 65534) writes a denial into the collector's file, takes it
away and puts its own file there, with a second denial in it. The collector
must notice (the name no longer names the file it flagged), record it once
as a signed denied_log_suppressed entry, mark the sandbox's file append-only
(its truncation then fails), and lose no denial: both files are read, every
record lands exactly once.
"""
import errno
import os
import signal
import subprocess
import time
import unittest

import erasure_support
from run_harness import RunHarness, append_only
from strace_support import strace_argv
from test_collector_faults import traced_child

# Long enough for the racer's two denials and its swap under a loaded machine.
IOCTL_DELAY_US = 4_000_000
RACED = "replaced before the attribute was set"


def race(log, shim_link, take_away):
    """As the sandbox user: waits for the collector's new log (owned by the
    sandbox user, not yet append-only), writes a denial into it, takes it
    away (`take_away`: "rename" or "unlink"), puts a file of its own at the
    name and writes a second denial there. Returns the two markers and what
    is at the name afterwards."""
    def loop():
        deadline = time.monotonic() + 15
        while True:
            try:
                if os.stat(log).st_uid == erasure_support.NOBODY:
                    break
            except FileNotFoundError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the collector never created " + log)
            time.sleep(0.002)
        env = {"PATH": "/usr/bin:/bin", "AGT_DENIED_LOG": log}
        markers = []

        def deny(marker):
            r = subprocess.run([shim_link, "-x", marker], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
            if r.returncode != 126:
                raise RuntimeError("the shim exited %d" % r.returncode)
            markers.append(marker)

        deny("race-%s-in-the-collectors-file" % take_away)
        created_ino = os.stat(log).st_ino
        if take_away == "rename":
            os.rename(log, log + ".taken")
        else:
            os.unlink(log)
        os.close(os.open(log, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        deny("race-%s-in-the-sandboxs-file" % take_away)
        return {"markers": markers, "created_ino": created_ino, "own_ino": os.stat(log).st_ino}
    return erasure_support.as_sandbox_user(loop)


def truncate_as_sandbox(path):
    def attempt():
        try:
            os.truncate(path, 0)
            return "truncated"
        except OSError as e:
            return errno.errorcode.get(e.errno, str(e.errno))
    return erasure_support.as_sandbox_user(attempt)


class AppendOnlyCreationRaceTest(unittest.TestCase):
    def run_race(self, take_away):
        h = RunHarness(self, name="append-only-race")
        os.chmod(h.dir, 0o755)  # the sandbox user runs the shim from h.bin
        log = h.log_path("late")
        trace = os.path.join(h.dir, "strace.log")
        h.start(append_only=True,
                wrap=strace_argv(trace, "trace=ioctl",
                                 "inject=ioctl:delay_enter=%d:when=1" % IOCTL_DELAY_US, paths=[log]))
        # The sandbox directory, owned by the sandbox user, appears whole.
        staged = os.path.join(h.dir, "late-staged")
        os.makedirs(staged)
        os.chown(staged, erasure_support.NOBODY, erasure_support.NOBODY)
        os.rename(staged, os.path.join(h.base, "late"))
        raced = race(log, os.path.join(h.bin, "curl"), take_away)
        self.assertNotEqual(raced["own_ino"], raced["created_ino"])
        h.expected += [("late", m) for m in raced["markers"]]

        # The collector finds the name taken over, records it, and guards
        # the file now there.
        h.wait_until(lambda: any(RACED in e["data"]["found"]
                                 for e in h.events("denied_log_suppressed")),
                     "the race is recorded")
        h.wait_until(lambda: append_only(log), "the sandbox's own file is append-only")
        self.assertEqual(os.stat(log).st_ino, raced["own_ino"])
        self.assertEqual(truncate_as_sandbox(log), "EPERM")
        h.deny("late")
        want = set(h.expected)
        h.wait_until(lambda: want <= set(h.markers()), "every denial is in the audit file")
        time.sleep(1)  # a duplicate gets a few scans to show up

        tracee = traced_child(h.proc.pid)
        os.kill(tracee, signal.SIGTERM)
        self.assertEqual(h.proc.wait(timeout=30), 0, h.stderr()[-3000:])
        h.assert_exact()
        found = [e["data"] for e in h.events("denied_log_suppressed")]
        self.assertEqual(len(found), 1, found)
        self.assertIn("(inode %d)" % raced["created_ino"], found[0]["found"])
        self.assertIn("the file created is read too", found[0]["found"])
        if take_away == "rename":
            self.assertIn("by another (inode %d)" % raced["own_ino"], found[0]["found"])
        self.assertTrue(found[0]["restored"], found[0])
        self.assertIn(log + ": suppressed: ", h.stderr())
        # The window was the one strace widened: the first ioctl on the log.
        with open(trace) as f:
            self.assertIn("(DELAYED)", f.read())

    def test_log_renamed_away_and_replaced_while_created(self):
        self.run_race("rename")

    def test_log_unlinked_and_replaced_while_created(self):
        self.run_race("unlink")


if __name__ == "__main__":
    unittest.main()
