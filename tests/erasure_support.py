"""The sandbox erasing its own denial log: the measurement of issue 10.

A process running as the sandbox user (uid/gid 65534, no capabilities)
makes a denial through the real shim and, at once, erases its log one way:
  unlink         os.unlink(log)
  rename_unlink  os.rename(log, log.x), then os.unlink(log.x)
  overwrite      the log opened for writing without O_APPEND and every byte
                 rewritten in place (blanks, same size)
  truncate       os.truncate(log, 0)
Used by tests/test_collector_append_only.py (a short run) and by
scripts/bench-collector-erasure (1,000 per way, with and without the
append-only attribute).
"""
import errno
import json
import os
import subprocess

NOBODY = 65534
MODES = ("unlink", "rename_unlink", "overwrite", "truncate")


def erase(path, mode):
    if mode == "unlink":
        os.unlink(path)
    elif mode == "rename_unlink":
        os.rename(path, path + ".x")
        os.unlink(path + ".x")
    elif mode == "overwrite":
        fd = os.open(path, os.O_WRONLY)  # the same size, every byte replaced
        try:
            size = os.fstat(fd).st_size
            if size > 0:
                os.write(fd, b" " * (size - 1) + b"\n")
        finally:
            os.close(fd)
    elif mode == "truncate":
        os.truncate(path, 0)
    else:
        raise ValueError(mode)


def as_sandbox_user(fn):
    """Runs fn() in a forked child as uid/gid 65534; returns its JSON result."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            os.close(read_end)
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            data = json.dumps(fn()).encode()
            with os.fdopen(write_end, "wb") as out:
                out.write(data)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as f:
        data = f.read()
    _, status = os.waitpid(pid, 0)
    if status != 0 or not data:
        raise RuntimeError("the sandbox-user child failed (status %d)" % status)
    return json.loads(data)


def deny_then_erase(shim_link, log, mode, rounds, tag):
    """As the sandbox user: `rounds` denials, each followed at once by one
    erasure of `log`. Returns (markers, {outcome: count}) where an outcome is
    "erased" or the errno name that refused it."""
    def loop():
        markers, outcomes = [], {}
        env = {"PATH": "/usr/bin:/bin", "AGT_DENIED_LOG": log}
        for i in range(rounds):
            marker = "%s-%s-%05d" % (tag, mode, i)
            r = subprocess.run([shim_link, "-x", marker], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
            if r.returncode != 126:
                raise RuntimeError("the shim exited %d" % r.returncode)
            markers.append(marker)
            try:
                erase(log, mode)
                outcome = "erased"
            except OSError as e:
                outcome = errno.errorcode.get(e.errno, str(e.errno))
            outcomes[outcome] = outcomes.get(outcome, 0) + 1
        return markers, outcomes
    return as_sandbox_user(loop)
