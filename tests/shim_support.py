"""Shared helpers for the agt-deny-shim end-to-end tests.

Every test execs the BUILT STATIC binary ($AGT_BUILD_DIR/shim/agt-deny-shim)
through real symlinks in temporary directories.
"""
import atexit
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from build_paths import BUILD, HERE, SHIM, TOP  # noqa: F401 (re-exported)

EXEC_EMPTY_ARGV = os.path.join(BUILD, "shim", "exec_empty_argv")
EXEC_SECCOMP_REFUSED = os.path.join(BUILD, "shim", "exec_seccomp_refused")

MAX_RECORD = 3584
MAX_STDERR = 4096
HUMAN_RE = re.compile(r"^agt-sandbox: command denied: ([A-Za-z0-9._+-]{1,64}) "
                      r"\(blocked by sandbox command denylist\)$")
WARNING_PREFIX = "agt-sandbox: warning: could not write AGT_DENIED_LOG: "
# A denial the collector's socket did not acknowledge (none listens at the
# built-in default on a test host): at most one such line, before the log's.
SOCKET_WARNING_PREFIX = "agt-sandbox: warning: denial not delivered to AGT_DENIED_SOCKET "
SOCKET_WARNING_SUFFIX = "; the record goes to AGT_DENIED_LOG"

# key -> expected Python type(s)
RECORD_KEYS = {
    "argc": int, "argv": list, "argv0": str, "binary": str, "confined": bool,
    "event": str, "gid": int, "host": str, "issue": int, "path": str, "pid": int,
    "ppid": int, "redactions": int, "timestamp": str, "timestamp_ns": int,
    "truncated": bool, "uid": int, "version": str, "via": str,
}
# Keys present only in some records: argv0 (absent when argc is 0) and script
# (only when via is "script").
OPTIONAL_KEYS = {"argv0", "script"}
RECORD_KEYS_ALL = dict(RECORD_KEYS, script=str)


_HELPERS = {}


def built_helper(name, source, compile_command):
    """A small program built from `source` once per test run, for tests that
    need an exec no scripting language offers. `compile_command(src, out,
    work)` gives the compiler's argv; returns the built program's path. The
    work directory goes when the test run ends (its tests share the program)."""
    if name not in _HELPERS:
        work = tempfile.mkdtemp(prefix="agt-helper-%s-" % name)
        atexit.register(shutil.rmtree, work, ignore_errors=True)
        src = os.path.join(work, source[0])
        with open(src, "w") as f:
            f.write(source[1])
        out = os.path.join(work, name)
        subprocess.run(compile_command(src, out, work), check=True, timeout=120)
        _HELPERS[name] = out
    return _HELPERS[name]


def require_static_shim(test):
    """Fails (never skips) when the static shim is missing or not static."""
    import struct
    if not os.path.exists(SHIM):
        test.fail("static shim not built: %s (run scripts/build)" % SHIM)
    with open(SHIM, "rb") as f:
        elf = f.read(65536)
    test.assertEqual(elf[:5], b"\x7fELF\x02")  # 64-bit ELF
    phoff, = struct.unpack_from("<Q", elf, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", elf, 0x36)
    for i in range(phnum):
        p_type, = struct.unpack_from("<I", elf, phoff + i * phentsize)
        test.assertNotEqual(p_type, 3, "%s has PT_INTERP: not a static binary" % SHIM)
        test.assertNotEqual(p_type, 2, "%s has PT_DYNAMIC: not a static binary" % SHIM)


class Sandbox:
    """A temporary directory holding symlinks to the static shim."""

    def __init__(self):
        self.path = tempfile.mkdtemp(prefix="agt-shim-e2e-")

    def link(self, name, subdir="bin"):
        d = os.path.join(self.path, subdir)
        os.makedirs(d, exist_ok=True)
        p = os.path.join(d, name)
        if not os.path.lexists(p):
            os.symlink(SHIM, p)
        return p

    def join(self, *names):
        return os.path.join(self.path, *names)

    def cleanup(self):
        shutil.rmtree(self.path, ignore_errors=True)


class Denial:
    """The outcome of one denied run, parsed strictly."""

    def __init__(self, proc):
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.lines = proc.stderr.split(b"\n")
        self.record = None
        self.record_line = b""
        if self.lines:
            self.record_line = self.lines[0]
            try:
                self.record = strict_json(self.record_line)
            except ValueError:
                self.record = None

    @property
    def human(self):
        return self.lines[1].decode("utf-8") if len(self.lines) > 1 else ""

    def _warning_lines(self):
        return [l.decode("utf-8", "replace") for l in self.lines[2:] if l]

    @property
    def warnings(self):
        """The warning lines other than the socket's (the log's)."""
        return [l for l in self._warning_lines() if not l.startswith(SOCKET_WARNING_PREFIX)]

    @property
    def socket_warnings(self):
        return [l for l in self._warning_lines() if l.startswith(SOCKET_WARNING_PREFIX)]


def strict_json(line):
    """Parses one record line: UTF-8 (strict), JSON (no NaN), an object."""
    text = line.decode("utf-8")  # raises on invalid UTF-8

    def no_constants(name):
        raise ValueError("non-JSON constant %s" % name)

    obj = json.loads(text, parse_constant=no_constants)
    if not isinstance(obj, dict):
        raise ValueError("not an object")
    return obj


def run(argv, executable=None, env=None, timeout=30, **kwargs):
    """Runs argv (argv[0] as given) and returns a Denial."""
    full_env = {"PATH": "/usr/bin:/bin"}
    if env:
        full_env.update(env)
    proc = subprocess.run(argv, executable=executable, env=full_env, capture_output=True,
                          timeout=timeout, **kwargs)
    return Denial(proc)


def shim_json(obj):
    """Serialises like the shim (man page, ESCAPING): keys sorted, compact,
    \\" and \\\\, \\u00XX for U+0000-U+001F and U+007F, \\u2028/\\u2029, the rest raw."""
    if isinstance(obj, dict):
        return "{" + ",".join(shim_json(k) + ":" + shim_json(obj[k]) for k in sorted(obj)) + "}"
    if isinstance(obj, list):
        return "[" + ",".join(shim_json(v) for v in obj) + "]"
    if isinstance(obj, bool):
        return "true" if obj else "false"
    if isinstance(obj, int):
        return str(obj)
    out = []
    for ch in obj:
        o = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif o < 0x20 or o == 0x7F or o in (0x2028, 0x2029):
            out.append("\\u%04x" % o)
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def compact(obj):
    return shim_json(obj).encode("utf-8")


class ShimTestCase(unittest.TestCase):
    """Base: a fresh sandbox per test and the record checks every test needs."""

    def setUp(self):
        require_static_shim(self)
        self.sandbox = Sandbox()
        self.addCleanup(self.sandbox.cleanup)

    def assertValidDenial(self, denial, binary):
        """Exit 126, one record line + the human line (+ warnings), all limits kept."""
        self.assertEqual(denial.returncode, 126, denial.stderr)
        self.assertEqual(denial.stdout, b"")
        self.assertLessEqual(len(denial.stderr), MAX_STDERR)
        self.assertTrue(denial.stderr.endswith(b"\n"), denial.stderr)
        self.assertIsNotNone(denial.record, denial.stderr[:300])
        self.assertLessEqual(len(denial.record_line), MAX_RECORD)
        self.assertValidRecord(denial.record, denial.record_line)
        self.assertEqual(denial.record["binary"], binary)
        m = HUMAN_RE.match(denial.human)
        self.assertIsNotNone(m, denial.human)
        self.assertEqual(m.group(1), binary)
        for w in denial.warnings:
            self.assertTrue(w.startswith(WARNING_PREFIX), w)
        self.assertLessEqual(len(denial.socket_warnings), 1, denial.stderr)
        for w in denial.socket_warnings:
            self.assertTrue(w.endswith(SOCKET_WARNING_SUFFIX), w)
            self.assertEqual(denial.lines[2].decode("utf-8", "replace"), w, "the socket's warning comes first")
        return denial.record

    def assertValidRecord(self, rec, line):
        keys = set(rec)
        self.assertEqual(keys - OPTIONAL_KEYS, set(RECORD_KEYS) - OPTIONAL_KEYS)
        self.assertEqual("script" in rec, rec["via"] == "script")
        self.assertIn(rec["via"], ("path", "argv0", "fd", "script", "none"))
        for key, typ in RECORD_KEYS_ALL.items():
            if key in rec:
                self.assertIsInstance(rec[key], typ, key)
                if typ is int:
                    self.assertNotIsInstance(rec[key], bool, key)
                    self.assertGreaterEqual(rec[key], 0, key)
        for a in rec["argv"]:
            self.assertIsInstance(a, str)
        self.assertEqual(rec["event"], "command_denied")
        self.assertEqual(rec["issue"], 2662)
        self.assertRegex(rec["timestamp"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
        self.assertEqual(rec["timestamp_ns"] // 10**9,
                         _epoch(rec["timestamp"]))
        # compact, sorted keys, exactly as upstream serialises
        self.assertEqual(line, compact(rec))


def _epoch(ts):
    import calendar
    import time
    return calendar.timegm(time.strptime(ts, "%Y-%m-%dT%H:%M:%SZ"))
