"""strace as the tests run it: the argv in front of a program to trace it.

Tests watch what a program asks of the kernel (which calls, on which file,
in which order) and inject faults into those calls; every such strace is
quiet (-qq: no attach and exit notices among the calls) and writes its trace
to a file of the test's, never to the program's stderr.
"""


def strace_argv(log, *exprs, paths=(), follow=True, fds=False, string_limit=None):
    """The argv that runs a program (appended after it) under strace, its
    trace to `log`. `exprs`: -e expressions ("trace=write",
    "inject=fdatasync:error=EIO"); `paths`: only calls on these paths are
    traced and injected into (-P); `follow`: threads and children too (-f);
    `fds`: descriptors shown with their paths (-y); `string_limit`: at most
    that many bytes of each string shown (-s)."""
    argv = ["strace"] + (["-f"] if follow else []) + ["-qq"] + (["-y"] if fds else [])
    if string_limit is not None:
        argv += ["-s", str(string_limit)]
    argv += ["-o", log]
    for path in paths:
        argv += ["-P", path]
    for expr in exprs:
        argv += ["-e", expr]
    return argv
