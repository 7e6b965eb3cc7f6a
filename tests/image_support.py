"""Shared helpers for the image tests: paths, the built static shim, synthetic
image roots, and running agt-deny-shim's image subcommands."""
import json
import os
import shutil
import stat
import subprocess
import tempfile
import unittest

from build_paths import BUILD, HERE, SHIM, TOP  # noqa: F401 (re-exported)

SHIM_IN_IMAGE = "/usr/local/lib/agt/agt-deny-shim"
PINNED = "usr/local/sandbox-bin"
REAL_DIRS = ["usr/local/sbin", "usr/local/bin", "usr/sbin", "usr/bin", "sbin", "bin"]
HUMAN_LINE = "agt-sandbox: command denied: %s (blocked by sandbox command denylist)"


def script(name, *args, env=None, timeout=1800):
    """Runs scripts/NAME; its CompletedProcess (text), or AssertionError with its output."""
    p = subprocess.run([os.path.join(TOP, "scripts", name)] + list(args), capture_output=True,
                       text=True, env=env, timeout=timeout)
    if p.returncode != 0:
        raise AssertionError("scripts/%s %s failed (exit %d):\n%s\n%s"
                             % (name, " ".join(args), p.returncode, p.stdout[-4000:],
                                p.stderr[-4000:]))
    return p


def require_shim(test):
    if not os.access(SHIM, os.X_OK):
        test.fail("no built shim at %s: run scripts/build (AGT_BUILD_DIR=%s)" % (SHIM, BUILD))


def run_shim(args, env_extra=None, check=None):
    """Runs the host's static shim as itself; returns CompletedProcess (text)."""
    env = {"PATH": "/usr/bin:/bin"}
    env.update(env_extra or {})
    p = subprocess.run([SHIM] + list(args), capture_output=True, text=True, env=env, timeout=120)
    if check is not None and p.returncode != check:
        raise AssertionError("agt-deny-shim %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s"
                             % (" ".join(args), p.returncode, check, p.stdout, p.stderr))
    return p


def snapshot(root):
    """Every entry under root as (path, type, mode, link target), sorted."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            target = os.readlink(p) if stat.S_ISLNK(st.st_mode) else None
            out.append((os.path.relpath(p, root), stat.S_IFMT(st.st_mode), stat.S_IMODE(st.st_mode),
                        st.st_ino if stat.S_ISREG(st.st_mode) else 0, target))
    return sorted(out, key=lambda e: e[0])


def parse_record(line):
    rec = json.loads(line)
    assert rec["event"] == "command_denied", line
    return rec


class SyntheticRoot:
    """A Debian-like merged-/usr root in a temp dir, with the built static
    shim copied in at its image path (so it also runs under chroot)."""

    def __init__(self, test):
        self.path = tempfile.mkdtemp(prefix="agt-image-root.")
        test.addCleanup(shutil.rmtree, self.path, ignore_errors=True)
        for d in ("usr/bin", "usr/sbin", "usr/local/bin", "usr/local/sbin", "usr/local/lib/agt",
                  "etc/alternatives", "tmp", "var/log/agt"):
            os.makedirs(self.at(d), exist_ok=True)
        os.chmod(self.at("tmp"), 0o1777)
        os.symlink("usr/bin", self.at("bin"))
        os.symlink("usr/sbin", self.at("sbin"))
        shutil.copy2(SHIM, self.at(SHIM_IN_IMAGE))
        os.chmod(self.at(SHIM_IN_IMAGE), 0o755)

    def at(self, rel):
        return os.path.join(self.path, rel.lstrip("/"))

    def file(self, rel, mode=0o755, content=b"#!/bin/false\n"):
        with open(self.at(rel), "wb") as f:
            f.write(content)
        os.chmod(self.at(rel), mode)

    def copy(self, rel, host_path):
        shutil.copy2(host_path, self.at(rel))

    def link(self, rel, target):
        if os.path.lexists(self.at(rel)):
            os.unlink(self.at(rel))
        os.symlink(target, self.at(rel))

    def readlink(self, rel):
        return os.readlink(self.at(rel)) if os.path.islink(self.at(rel)) else None

    def mode(self, rel):
        return stat.S_IMODE(os.stat(self.at(rel)).st_mode)


class ImageTestCase(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        require_shim(self)
