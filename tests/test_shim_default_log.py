"""agt-deny-shim's built-in default log: `env -i curl x` still records.

The default is set at build time (meson option denied_log_default, written
into build/shim/destinations.h). Each test runs the shim in a private mount
namespace with a fresh tmpfs over the default's grandparent directory, so the
host's own log directory is never touched. Needs root (unshare, mount): fails
without it.
"""
import os
import re
import subprocess

from build_paths import BUILD
from shim_support import ShimTestCase, strict_json


def default_log_path():
    with open(os.path.join(BUILD, "shim", "destinations.h")) as f:
        m = re.search(r'kDefaultDeniedLog\[\] = "([^"]*)";', f.read())
    return m.group(1)


class DefaultLog(ShimTestCase):

    def in_namespace(self, env_args, argv, make_directory=True):
        """Runs `env -i ENV... argv` with a tmpfs holding the default's
        directory; returns (exit status of the shim, stderr, log content)."""
        default = default_log_path()
        self.assertTrue(default.startswith("/"), default)
        directory = os.path.dirname(default)
        top = os.path.dirname(directory)
        self.assertTrue(os.path.isdir(top), "the default's parent %s must exist on the host" % top)
        script = ('mount -t tmpfs agt-test "$1" && { [ -z "$2" ] || mkdir -p "$2"; } && shift 3 && '
                  'env -i "$@" 2>"$0.err"; echo "$?" > "$0.rc"; cat "$DEFAULT" 2>/dev/null || true')
        scratch = self.sandbox.join("out")
        proc = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script,
                               scratch, top, directory if make_directory else "", "--"] + env_args + argv,
                              env={"PATH": "/usr/bin:/bin", "DEFAULT": default}, capture_output=True, timeout=60)
        self.assertEqual(proc.stderr, b"", "unshare/mount failed (root needed)")
        with open(scratch + ".rc") as f:
            rc = int(f.read())
        with open(scratch + ".err", "rb") as f:
            err = f.read()
        return rc, err, proc.stdout

    def test_env_minus_i_records_to_the_default(self):
        rc, err, logged = self.in_namespace([], [self.sandbox.link("curl"), "https://example.com/x"])
        self.assertEqual(rc, 126)
        record_line = err.split(b"\n")[0]
        self.assertEqual(strict_json(record_line)["argv"], ["https://example.com/x"])
        self.assertEqual(logged, record_line + b"\n")
        self.assertNotIn(b"could not write AGT_DENIED_LOG", err)

    def test_an_empty_value_does_not_silence(self):
        rc, err, logged = self.in_namespace(["AGT_DENIED_LOG="], [self.sandbox.link("wget"), "x"])
        self.assertEqual(rc, 126)
        self.assertEqual(logged, err.split(b"\n")[0] + b"\n")

    def test_the_environment_overrides_the_default(self):
        own = self.sandbox.join("own.log")
        rc, err, logged = self.in_namespace(["AGT_DENIED_LOG=" + own], [self.sandbox.link("ssh"), "h"])
        self.assertEqual(rc, 126)
        self.assertEqual(logged, b"")
        with open(own, "rb") as f:
            self.assertEqual(f.read(), err.split(b"\n")[0] + b"\n")

    def test_a_missing_default_directory_is_warned_about(self):
        # Without the volume the default's directory is missing: the denial
        # then warns, naming the path; it is never silent.
        rc, err, logged = self.in_namespace([], [self.sandbox.link("curl"), "x"], make_directory=False)
        self.assertEqual(rc, 126)
        self.assertEqual(logged, b"")
        self.assertIn(('could not write AGT_DENIED_LOG: openat "%s": No such file or directory'
                       % default_log_path()).encode(), err)

    def test_the_man_page_names_the_built_in_default(self):
        from build_paths import TOP
        with open(os.path.join(TOP, "man", "agt-deny-shim.1")) as f:
            page = f.read()
        section = page[page.index(".Sh DESTINATIONS"):page.index(".Sh ENVIRONMENT")]
        self.assertIn("Ta Pa %s Ta" % default_log_path(), section)
