"""agt-deny-shim issue point 4: $AGT_DENIED_LOG and every hostile shape of it."""
import os
import socket
import stat
import subprocess
import time

from shim_support import WARNING_PREFIX, ShimTestCase, run
from strace_support import strace_argv
from tmpfs_support import fill_up, mount_tmpfs


class DeniedLog(ShimTestCase):

    def deny(self, log, *args):
        link = self.sandbox.link("curl")
        started = time.monotonic()
        d = run(["curl"] + list(args or ["x"]), executable=link, env={"AGT_DENIED_LOG": log},
                timeout=20)
        self.assertLess(time.monotonic() - started, 10, "the denial must never hang")
        self.assertValidDenial(d, "curl")
        return d

    def assertWarned(self, d, reason):
        self.assertEqual(len(d.warnings), 1, d.stderr)
        self.assertTrue(d.warnings[0].startswith(WARNING_PREFIX), d.warnings[0])
        self.assertIn(reason, d.warnings[0])

    def read(self, path):
        with open(path, "rb") as f:
            return f.read()

    def test_regular_file_is_created_0600_and_appended(self):
        log = self.sandbox.join("denied.log")
        os.umask(0o022)
        first = self.deny(log, "one")
        second = self.deny(log, "two")
        self.assertEqual(first.warnings, [])
        self.assertEqual(self.read(log), first.record_line + b"\n" + second.record_line + b"\n")
        self.assertEqual(stat.S_IMODE(os.stat(log).st_mode), 0o600)

    def test_opened_with_exactly_the_documented_flags(self):
        # Issue point 4's flag list, as the kernel sees the call: O_RDWR (the
        # last byte is read to end an earlier fragment), O_NOFOLLOW
        # (no symlink), O_NONBLOCK (no hang on a FIFO), O_NOCTTY (a terminal
        # never becomes the controlling one), O_APPEND (one piece at the end).
        log = self.sandbox.join("denied.log")
        trace = self.sandbox.join("trace")
        proc = subprocess.run(strace_argv(trace, "trace=openat", follow=False) + [
                               self.sandbox.link("curl"), "x"],
                              env={"AGT_DENIED_LOG": log}, capture_output=True, timeout=60)
        self.assertEqual(proc.returncode, 126, proc.stderr)
        with open(trace) as f:
            opens = [l for l in f.read().splitlines() if log in l]
        self.assertEqual(len(opens), 1, opens)
        flags, mode = opens[0].split(", ")[2:4]
        self.assertEqual(set(flags.split("|")),
                         {"O_RDWR", "O_APPEND", "O_CREAT", "O_NOFOLLOW", "O_CLOEXEC", "O_NOCTTY",
                          "O_NONBLOCK"})
        self.assertTrue(mode.startswith("0600)"), opens[0])

    def test_existing_file_keeps_its_content(self):
        log = self.sandbox.join("denied.log")
        with open(log, "wb") as f:
            f.write(b"earlier line\n")
        d = self.deny(log)
        self.assertEqual(self.read(log), b"earlier line\n" + d.record_line + b"\n")

    def test_symlink_is_refused_and_target_untouched(self):
        target = self.sandbox.join("target")
        with open(target, "wb") as f:
            f.write(b"precious\n")
        log = self.sandbox.join("denied.log")
        os.symlink(target, log)
        d = self.deny(log)
        self.assertWarned(d, "symbolic link")
        self.assertEqual(self.read(target), b"precious\n")

    def test_dangling_symlink_creates_nothing(self):
        target = self.sandbox.join("would-be-created")
        log = self.sandbox.join("denied.log")
        os.symlink(target, log)
        d = self.deny(log)
        self.assertWarned(d, "symbolic link")
        self.assertFalse(os.path.exists(target))

    def test_fifo_without_reader_never_hangs(self):
        log = self.sandbox.join("denied.log")
        os.mkfifo(log)
        d = self.deny(log)
        # Opened read-write (for the last-byte check), a FIFO opens at once
        # without a reader and is refused as not a regular file.
        self.assertWarned(d, "a FIFO, not a regular file")

    def test_fifo_with_reader_gets_nothing(self):
        log = self.sandbox.join("denied.log")
        os.mkfifo(log)
        reader = os.open(log, os.O_RDONLY | os.O_NONBLOCK)
        self.addCleanup(os.close, reader)
        d = self.deny(log)
        self.assertWarned(d, "a FIFO, not a regular file")
        try:
            data = os.read(reader, 4096)
        except BlockingIOError:
            data = b""
        self.assertEqual(data, b"")

    def test_directory(self):
        log = self.sandbox.join("logdir")
        os.mkdir(log)
        d = self.deny(log)
        self.assertWarned(d, "Is a directory")
        self.assertEqual(os.listdir(log), [])

    def test_character_devices(self):
        null = self.sandbox.join("null")
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        d = self.deny(null)
        self.assertWarned(d, "a character device, not a regular file")
        d = self.deny("/dev/null")
        self.assertWarned(d, "a character device, not a regular file")

    def test_unix_socket(self):
        path = self.sandbox.join("sock")
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.addCleanup(s.close)
        s.bind(path)
        s.listen(1)
        d = self.deny(path)
        self.assertWarned(d, "No such device or address")

    def test_missing_directory(self):
        d = self.deny(self.sandbox.join("missing", "denied.log"))
        self.assertWarned(d, "No such file or directory")
        self.assertFalse(os.path.exists(self.sandbox.join("missing")))

    def test_empty_value(self):
        d = self.deny("")
        self.assertWarned(d, "No such file or directory")

    def test_read_only_file_system(self):
        mnt = self.sandbox.join("ro")
        mount_tmpfs(self, mnt, "size=1m,mode=0755")
        existing = os.path.join(mnt, "denied.log")
        with open(existing, "wb") as f:
            f.write(b"before\n")
        self.assertEqual(subprocess.run(["mount", "-o", "remount,ro", mnt]).returncode, 0)
        d = self.deny(existing)
        self.assertWarned(d, "Read-only file system")
        self.assertEqual(self.read(existing), b"before\n")
        d = self.deny(os.path.join(mnt, "new.log"))
        self.assertWarned(d, "Read-only file system")
        self.assertFalse(os.path.exists(os.path.join(mnt, "new.log")))

    def test_full_file_system(self):
        mnt = self.sandbox.join("full")
        mount_tmpfs(self, mnt, "size=64k,mode=0755")
        fill_up(mnt)
        log = os.path.join(mnt, "denied.log")
        d = self.deny(log)
        self.assertWarned(d, "No space left on device")
        self.assertEqual(os.path.getsize(log) if os.path.exists(log) else 0, 0)

    def test_file_size_limit(self):
        import resource
        log = self.sandbox.join("denied.log")
        link = self.sandbox.link("curl")

        def limit():
            resource.setrlimit(resource.RLIMIT_FSIZE, (16, 16))

        d = run(["curl", "x"], executable=link, env={"AGT_DENIED_LOG": log}, preexec_fn=limit)
        self.assertValidDenial(d, "curl")
        self.assertEqual(len(d.warnings), 1, d.stderr)
        self.assertIn("short write (16 of", d.warnings[0])

    def test_a_secret_in_the_log_path_is_redacted_in_the_warning(self):
        d = self.deny(self.sandbox.join("missing", "https://u:logpathsecret@h", "denied.log"))
        self.assertEqual(len(d.warnings), 1, d.stderr)
        self.assertIn("https://u:[REDACTED]@h", d.warnings[0])
        self.assertNotIn(b"logpathsecret", d.stderr)

    def test_hostile_log_path_is_escaped_in_the_warning(self):
        d = self.deny(self.sandbox.join("no\ndir\x1b[31m", "denied.log"))
        self.assertEqual(len(d.warnings), 1, d.stderr)
        self.assertIn("\\u000a", d.warnings[0])
        self.assertIn("\\u001b", d.warnings[0])
