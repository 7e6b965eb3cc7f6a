"""Makes a running process make system calls of the test's choosing, as a
confined daemon would if an attacker had its code (x86-64 Linux, root).

gdb's inferior calls did this before, but gdb 13 cannot write back the
extended register state on CPUs with AMX tiles ("Couldn't write extended
state status: Bad address"), so no call is made and the process it touched
may be left broken. Here only the general registers are written: the
thread is stopped with PTRACE_SEIZE and PTRACE_INTERRUPT, pointed at a
`syscall` instruction of its own code with the call's number and arguments,
stepped over it once, and given its registers back, so that the call it was
in (poll) restarts as after any interruption. Strings go into a page the
process maps for them (an injected mmap) and unmaps after.
"""
import ctypes
import errno
import os
import re

PTRACE_GETREGS, PTRACE_SETREGS, PTRACE_SINGLESTEP, PTRACE_DETACH = 12, 13, 9, 17
PTRACE_SEIZE, PTRACE_INTERRUPT = 0x4206, 0x4207
__WALL = 0x40000000

SYS_MMAP, SYS_MUNMAP, SYS_OPENAT, SYS_EXECVE, SYS_SOCKET, SYS_CLONE = 9, 11, 257, 59, 41, 56
AT_FDCWD = -100
SIGCHLD = 17
PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS = 3, 0x22
PAGE = 4096


class Regs(ctypes.Structure):
    """struct user_regs_struct of x86-64 (sys/user.h)."""
    _fields_ = [(name, ctypes.c_ulonglong) for name in (
        "r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8", "rax", "rcx",
        "rdx", "rsi", "rdi", "orig_rax", "rip", "cs", "eflags", "rsp", "ss", "fs_base",
        "gs_base", "ds", "es", "fs", "gs")]


_libc = ctypes.CDLL(None, use_errno=True)
_libc.ptrace.restype = ctypes.c_long
_libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]


def _ptrace(request, pid, addr=None, data=None):
    if _libc.ptrace(request, pid, addr, data) == -1:
        err = ctypes.get_errno()
        raise OSError(err, "ptrace(%d) on %d: %s" % (request, pid, os.strerror(err)))


def _stopped(pid):
    _, status = os.waitpid(pid, __WALL)
    if not os.WIFSTOPPED(status):
        raise OSError(errno.ESRCH, "process %d did not stop (status %#x)" % (pid, status))


def _syscall_instruction(pid):
    """The address of a `syscall` (0f 05) in an executable mapping of the
    process's C library."""
    with open("/proc/%d/maps" % pid) as maps, open("/proc/%d/mem" % pid, "rb") as mem:
        for line in maps:
            fields = line.split()
            if len(fields) < 6 or "x" not in fields[1] or not re.search(r"libc[.-]", fields[5]):
                continue
            start, end = (int(x, 16) for x in fields[0].split("-"))
            mem.seek(start)
            at = mem.read(end - start).find(b"\x0f\x05")
            if at >= 0:
                return start + at
    raise OSError(errno.ENOENT, "no syscall instruction in process %d's C library" % pid)


def _call(pid, saved, instruction, number, args):
    """One system call made by the stopped thread: its raw return value."""
    regs = Regs.from_buffer_copy(saved)
    regs.rip, regs.rax, regs.orig_rax = instruction, number, (1 << 64) - 1  # not in a call
    for name, value in zip(("rdi", "rsi", "rdx", "r10", "r8", "r9"), args):
        setattr(regs, name, value & ((1 << 64) - 1))
    _ptrace(PTRACE_SETREGS, pid, None, ctypes.byref(regs))
    _ptrace(PTRACE_SINGLESTEP, pid)
    _stopped(pid)
    _ptrace(PTRACE_GETREGS, pid, None, ctypes.byref(regs))
    value = regs.rax
    return value - (1 << 64) if value >= 1 << 63 else value


def _as_errno(value):
    """(result, errno) as the C library's wrapper returns them."""
    return (-1, -value) if -4096 < value < 0 else (value, 0)


def open_call(path, flags, mode):
    return (SYS_OPENAT, [AT_FDCWD, path, flags, mode])


def execve_call(path):
    return (SYS_EXECVE, [path, 0, 0])


def socket_call(domain, kind):
    return (SYS_SOCKET, [domain, kind, 0])


def fork_call():
    return (SYS_CLONE, [SIGCHLD, 0, 0, 0, 0])


def syscalls_in(pid, calls):
    """Makes thread `pid` make each call ((number, args); a str argument is
    passed as a pointer to it, NUL-terminated); returns (result, errno)
    for each, as the C library would."""
    strings = b"".join(a.encode() + b"\0" for _, args in calls for a in args if isinstance(a, str))
    if len(strings) > PAGE:
        raise ValueError("the calls' strings need more than a page")
    _ptrace(PTRACE_SEIZE, pid)
    try:
        _ptrace(PTRACE_INTERRUPT, pid)
        _stopped(pid)
        saved = Regs()
        _ptrace(PTRACE_GETREGS, pid, None, ctypes.byref(saved))
        instruction = _syscall_instruction(pid)
        try:
            page = _call(pid, saved, instruction, SYS_MMAP,
                         [0, PAGE, PROT_READ_WRITE, MAP_PRIVATE_ANONYMOUS, -1, 0])
            if page < 0:
                raise OSError(-page, "mmap in process %d: %s" % (pid, os.strerror(-page)))
            with open("/proc/%d/mem" % pid, "r+b", buffering=0) as mem:
                mem.seek(page)
                mem.write(strings)
            results, offset = [], 0
            for number, args in calls:
                raw = []
                for a in args:
                    if isinstance(a, str):
                        raw.append(page + offset)
                        offset += len(a.encode()) + 1
                    else:
                        raw.append(a)
                results.append(_as_errno(_call(pid, saved, instruction, number, raw)))
            _call(pid, saved, instruction, SYS_MUNMAP, [page, PAGE])
            return results
        finally:
            _ptrace(PTRACE_SETREGS, pid, None, ctypes.byref(saved))
    finally:
        _ptrace(PTRACE_DETACH, pid)
