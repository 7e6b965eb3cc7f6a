"""The bare durability floor of a file system, measured by the benchmarks
that compare a durable write with it (scripts/bench-collector-run,
scripts/bench-shim)."""
import os
import time


def floor_on_filesystem(root, samples):
    """The bare durability floor here: what any exactly-once tailer must pay."""
    path = os.path.join(root, "floor.jsonl")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    line = b"x" * 900 + b"\n"
    appends, checkpoints = [], []
    dfd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    for i in range(samples):
        t0 = time.perf_counter()
        os.write(fd, line)
        os.fdatasync(fd)
        t1 = time.perf_counter()
        tmp = os.path.join(root, "ck.tmp")
        cfd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.write(cfd, b"checkpoint %d\n" % i)
        os.fsync(cfd)
        os.close(cfd)
        os.rename(tmp, os.path.join(root, "ck"))
        os.fsync(dfd)
        t2 = time.perf_counter()
        appends.append(t1 - t0)
        checkpoints.append(t2 - t0)
    os.close(fd)
    os.close(dfd)
    return appends, checkpoints
