"""Small private tmpfs mounts for the tests of full and read-only disks."""
import os
import subprocess


def mount_tmpfs(test, path, options):
    """Mounts a private tmpfs (root needed: a test that cannot FAILS)."""
    os.makedirs(path, exist_ok=True)
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", path],
                          capture_output=True, text=True)
    test.assertEqual(proc.returncode, 0, "mount tmpfs (needs root): %s" % proc.stderr)
    test.addCleanup(subprocess.run, ["umount", "-l", path], capture_output=True)


def fill_up(directory):
    """Writes DIRECTORY/filler until the file system is full; returns its path."""
    filler = os.path.join(directory, "filler")
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while os.write(fd, b"\0" * 4096) > 0:
            pass
    except OSError:
        pass
    os.close(fd)
    return filler
