"""agt-deny-shim install/allow/harden/verify on synthetic image roots, with the
built static shim, no Docker: the links, bad names, allow-list conflicts,
dangling links, idempotence, a hostile root, and chroot-ing into the root to
exec a shimmed path for real."""
import json
import re
import os
import shutil
import subprocess

from image_support import (HUMAN_LINE, NO_COLLECTOR_LINE, PINNED, SHIM, SHIM_IN_IMAGE, ImageTestCase,
                           SyntheticRoot, parse_record, run_shim, snapshot)
from strace_support import strace_argv

ALLOWED = "python3 ls cat"
DENIED = "curl wget git apt-get"
STRIPPED = "sh bash dash awk perl busybox base64"


def debian_like(test):
    """Real static-enough binaries are not needed for the links: plain files
    stand in for them, except what the chroot test executes."""
    r = SyntheticRoot(test)
    for name in ("ls", "cat", "python3.11", "dash", "bash", "perl", "mawk", "busybox", "base64",
                 "apt-get"):
        r.file("usr/bin/" + name)
    r.link("usr/bin/python3", "python3.11")
    r.link("usr/bin/sh", "dash")
    r.link("etc/alternatives/awk", "/usr/bin/mawk")
    r.link("usr/bin/awk", "/etc/alternatives/awk")
    r.file("usr/bin/curl")
    r.link("usr/bin/wget", "/opt/removed/wget")       # dangling
    r.link("usr/local/bin/git", "../../bin/ls")         # a symlink to something else
    return r


def build(test, r, denied=DENIED):
    run_shim(["allow", "--root", r.path, "--names", ALLOWED], check=0)
    run_shim(["harden", "--root", r.path, "--names", STRIPPED], check=0)
    return run_shim(["install", "--root", r.path, "--names", denied, "--stripped", STRIPPED], check=0)


def verify(r, extra=()):
    return run_shim(["verify", "--root", r.path, "--denied", DENIED, "--allowed", ALLOWED,
                     "--stripped", STRIPPED] + list(extra))


class InstallLinks(ImageTestCase):

    def test_every_real_path_and_the_pinned_dir_become_the_shim(self):
        r = debian_like(self)
        p = build(self, r)
        for d in ("usr/bin", "usr/sbin", "usr/local/bin", "usr/local/sbin", PINNED):
            for name in DENIED.split():
                self.assertEqual(r.readlink(d + "/" + name), SHIM_IN_IMAGE, d + "/" + name)
        # merged /usr: /bin is usr/bin, handled once, and stays a link
        self.assertEqual(r.readlink("bin"), "usr/bin")
        self.assertIn("/bin is /usr/bin (same directory, done once)", p.stdout)
        self.assertIn("/usr/bin/curl -> %s (replaced regular file, mode 0755)" % SHIM_IN_IMAGE, p.stdout)
        self.assertIn('/usr/bin/wget -> %s (replaced symlink to "/opt/removed/wget")' % SHIM_IN_IMAGE, p.stdout)
        self.assertIn('/usr/local/bin/git -> %s (replaced symlink to "../../bin/ls")' % SHIM_IN_IMAGE, p.stdout)
        # 11 names x 5 directories
        self.assertIn("11 names (4 denied, 7 stripped): 55 links made, 0 already the shim", p.stdout)
        self.assertEqual(verify(r).returncode, 0, verify(r).stdout)

    def test_each_entry_is_replaced_by_one_rename_never_unlinked(self):
        # Atomic: a new link is made beside the entry and renamed over it, so
        # the real path is never missing, not even for a moment.
        r = debian_like(self)
        trace = os.path.join(r.path, "..", os.path.basename(r.path) + ".trace")
        self.addCleanup(lambda: os.path.exists(trace) and os.unlink(trace))
        p = subprocess.run(strace_argv(trace,
                                       "trace=unlink,unlinkat,rename,renameat,renameat2,symlink,symlinkat",
                                       follow=False) + [
                            SHIM, "install", "--root", r.path, "--names", "curl wget", "--stripped", "zsh"],
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(trace) as f:
            calls = [l for l in f.read().splitlines() if l.strip()]
        self.assertFalse([c for c in calls if "unlink" in c], calls)
        renames = [c for c in calls if c.startswith("renameat(")]
        self.assertEqual(len(renames), 15, calls)  # 3 names x (4 real dirs + the pinned dir)
        for c in renames:
            self.assertRegex(c, r'^renameat\(\d+, "\.agt-deny-shim\.tmp\.(curl|wget|zsh)", \d+, "(curl|wget|zsh)"\) = 0$')
        self.assertEqual(r.readlink("usr/bin/curl"), SHIM_IN_IMAGE)

    def test_rerun_is_idempotent(self):
        r = debian_like(self)
        build(self, r)
        before = snapshot(r.path)
        p = build(self, r)
        self.assertEqual(snapshot(r.path), before)
        self.assertIn("11 names (4 denied, 7 stripped): 0 links made, 55 already the shim", p.stdout)

    def test_warns_when_the_list_leaves_out_default_names(self):
        r = debian_like(self)
        p = run_shim(["install", "--root", r.path, "--names", "curl"], check=0)
        listed = run_shim(["list"], check=0).stdout
        self.assertIn("agt-deny-shim: warning: install: --names leaves out", p.stderr)
        for name in ("kubectl", "terraform", "ssh"):
            self.assertIn(name, listed)
            self.assertIn(" " + name, p.stderr.split("run normally:")[1] + " ")
        d = run_shim(["install", "--root", r.path], env_extra={"DENIED_LOGGED_BIN_NAMES": ""}, check=0)
        self.assertNotIn("leaves out", d.stderr)  # unset/empty build-arg: the whole default set
        self.assertEqual(r.readlink(PINNED + "/kubectl"), SHIM_IN_IMAGE)

    def test_names_from_the_build_arg_variable(self):
        r = debian_like(self)
        run_shim(["install", "--root", r.path], env_extra={"DENIED_LOGGED_BIN_NAMES": "curl\twget"}, check=0)
        self.assertEqual(r.readlink("usr/bin/curl"), SHIM_IN_IMAGE)
        self.assertEqual(r.readlink(PINNED + "/wget"), SHIM_IN_IMAGE)
        self.assertIsNone(r.readlink(PINNED + "/git"))


class BadInput(ImageTestCase):

    def test_one_bad_name_fails_the_run_and_changes_nothing(self):
        r = debian_like(self)
        before = snapshot(r.path)
        for bad in ("curl w*get", "curl ../etc/passwd", "curl /usr/bin/ssh", "curl $(id)", "curl `id`",
                    "curl a;b", "curl -x", "curl " + "a" * 65, "curl .hidden", "curl agt-deny-shim",
                    "curl caf\u00e9"):
            for how in ("option", "env"):
                if how == "option":
                    p = run_shim(["install", "--root", r.path, "--names", bad])
                else:
                    p = run_shim(["install", "--root", r.path], env_extra={"DENIED_LOGGED_BIN_NAMES": bad})
                self.assertEqual(p.returncode, 2, (bad, how, p.stderr))
                self.assertRegex(p.stderr, r"^agt-deny-shim: error: install: bad name .* in "
                                 r"(--names|DENIED_LOGGED_BIN_NAMES): .*; nothing was changed\n$")
                self.assertEqual(p.stdout, "")
        self.assertEqual(snapshot(r.path), before)

    def test_bad_names_for_allow_and_harden_change_nothing(self):
        r = debian_like(self)
        before = snapshot(r.path)
        p = run_shim(["allow", "--root", r.path, "--names", "ls ca?t"])
        self.assertEqual(p.returncode, 2)
        self.assertIn('bad name "ca?t" in --names', p.stderr)
        p = run_shim(["harden", "--root", r.path], env_extra={"STRIP_EXEC_BIN_NAMES": "sh b[a]sh"})
        self.assertEqual(p.returncode, 2)
        self.assertIn('bad name "b[a]sh" in STRIP_EXEC_BIN_NAMES', p.stderr)
        self.assertEqual(snapshot(r.path), before)

    def test_usage_errors(self):
        r = debian_like(self)
        p = run_shim(["install", "--root", r.path, "--nmaes", "curl"])
        self.assertEqual(p.returncode, 2)
        self.assertIn('unknown option "--nmaes" for install (did you mean --names?)', p.stderr)
        p = run_shim(["verify"])
        self.assertEqual(p.returncode, 2)
        self.assertIn("--root DIR is required", p.stderr)
        p = run_shim(["install", "--root", r.path, "--names", "  "])
        self.assertEqual(p.returncode, 2)
        self.assertIn("--names is empty", p.stderr)

    def test_install_without_the_shim_in_the_root_changes_nothing(self):
        r = debian_like(self)
        os.unlink(r.at(SHIM_IN_IMAGE))
        before = snapshot(r.path)
        p = run_shim(["install", "--root", r.path, "--names", "curl"])
        self.assertEqual(p.returncode, 1)
        self.assertIn("is not in the root (copy it there first); nothing was changed", p.stderr)
        self.assertEqual(snapshot(r.path), before)


class AllowListWins(ImageTestCase):

    def test_a_name_in_the_pinned_dir_is_left_alone_everywhere(self):
        r = debian_like(self)
        run_shim(["allow", "--root", r.path, "--names", "ls curl"], check=0)
        self.assertEqual(r.readlink(PINNED + "/curl"), "/usr/bin/curl")
        p = run_shim(["install", "--root", r.path, "--names", "curl wget"], check=0)
        self.assertIn("left alone: curl (in /usr/local/sandbox-bin as an allowed command; "
                      "the allow list wins)", p.stderr)
        self.assertEqual(r.readlink(PINNED + "/curl"), "/usr/bin/curl")
        self.assertIsNone(r.readlink("usr/bin/curl"))           # the real binary stays
        self.assertEqual(r.readlink("usr/bin/wget"), SHIM_IN_IMAGE)
        v = run_shim(["verify", "--root", r.path, "--denied", "curl wget", "--allowed", "ls curl",
                      "--stripped", "zsh"])
        self.assertEqual(v.returncode, 0, v.stdout)

    def test_allow_warns_on_names_not_found(self):
        r = debian_like(self)
        p = run_shim(["allow", "--root", r.path, "--names", "ls nosuchtool"], check=0)
        self.assertIn("not found at any real path, not allowed: nosuchtool", p.stderr)
        self.assertFalse(os.path.lexists(r.at(PINNED + "/nosuchtool")))


class Harden(ImageTestCase):

    def test_strips_the_files_links_name_and_keeps_the_shim(self):
        r = debian_like(self)
        os.chmod(r.at("usr/bin/bash"), 0o4755)
        run_shim(["install", "--root", r.path, "--names", "curl", "--stripped", "zsh"], check=0)
        p = run_shim(["harden", "--root", r.path, "--names", STRIPPED + " curl"], check=0)
        for f in ("dash", "bash", "mawk", "perl", "busybox", "base64"):
            self.assertEqual(r.mode("usr/bin/" + f) & 0o7111, 0, f)
        self.assertEqual(r.readlink("usr/bin/sh"), "dash")
        self.assertIn("stripped /usr/bin/mawk (mode 0755 -> 0644) via /usr/bin/awk", p.stdout)
        self.assertIn("stripped /usr/bin/bash (mode 4755 -> 0644)", p.stdout)
        self.assertIn("/usr/bin/curl is the deny shim; left executable", p.stdout)
        # Executable by all, readable by its owner only (install made it so).
        self.assertEqual(r.mode(SHIM_IN_IMAGE), 0o711)

    def test_links_pointing_out_of_the_root_never_reach_the_host(self):
        host = SyntheticRoot(self)  # any directory outside the root under test
        host.file("usr/bin/precious", 0o755)
        r = debian_like(self)
        r.link("usr/bin/sh", host.at("usr/bin/precious"))              # absolute host path
        r.link("usr/bin/bash", "../../../../../../.." + host.at("usr/bin/precious"))
        os.rmdir(r.at("usr/local/sbin"))
        r.link("usr/local/sbin", host.at("usr/bin"))                   # a real dir pointing out
        before = snapshot(host.path)
        run_shim(["harden", "--root", r.path, "--names", "sh bash precious"], check=0)
        run_shim(["install", "--root", r.path, "--names", "precious curl"], check=0)
        self.assertEqual(snapshot(host.path), before)
        self.assertEqual(r.readlink("usr/bin/precious"), SHIM_IN_IMAGE)


    def test_a_file_on_another_mount_or_linked_from_outside_is_refused(self):
        # A mount inside the root (a bind mount from the host, say) or a hard
        # link whose other name is outside the root: harden must not change it.
        if os.geteuid() != 0:
            self.fail("mount needs root (uid %d)" % os.geteuid())
        r = debian_like(self)
        mnt = r.at("opt/mnt")
        os.makedirs(mnt)
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", mnt], check=True)
        self.addCleanup(subprocess.run, ["umount", mnt])
        r.file("opt/mnt/bash", 0o755)
        r.link("usr/bin/bash", "/opt/mnt/bash")
        host = SyntheticRoot(self)
        host.file("usr/bin/perl", 0o755)
        os.unlink(r.at("usr/bin/perl"))
        os.link(host.at("usr/bin/perl"), r.at("usr/bin/perl"))
        before = snapshot(r.path)
        p = run_shim(["harden", "--root", r.path, "--names", "bash perl dash"], check=1)
        self.assertIn("agt-deny-shim: error: harden: refusing to change /opt/mnt/bash: it is on another device "
                      "than the root", p.stderr)
        self.assertIn("agt-deny-shim: error: harden: refusing to change /usr/bin/perl: it has 2 hard links and "
                      "only 1 are in the root", p.stderr)
        self.assertIn("agt-deny-shim: error: harden: 2 failed; nothing was changed", p.stderr)
        self.assertEqual(snapshot(r.path), before)
        self.assertEqual(host.mode("usr/bin/perl"), 0o755)
        self.assertEqual(r.mode("opt/mnt/bash"), 0o755)
        self.assertEqual(r.mode("usr/bin/dash"), 0o755)


class Verify(ImageTestCase):

    def test_each_drift_is_one_line(self):
        r = debian_like(self)
        build(self, r)
        ok = verify(r)
        self.assertEqual(ok.returncode, 0, ok.stdout + ok.stderr)
        self.assertRegex(ok.stdout, r"^agt-deny-shim: verify: ok: 4 denied, 3 allowed, 7 stripped names")
        before = snapshot(r.path)
        # Tamper a copy; the original still verifies.
        t = SyntheticRoot(self)
        shutil.rmtree(t.path)
        shutil.copytree(r.path, t.path, symlinks=True)
        os.unlink(t.at("usr/bin/curl"))
        t.file("usr/bin/curl")                                   # a real curl back
        t.link(PINNED + "/id", "/usr/bin/ls")                   # an extra pinned entry
        os.unlink(t.at("usr/bin/perl"))
        t.file("usr/bin/perl", content=b"a real perl\n")         # an interpreter back
        os.unlink(t.at(PINNED + "/git"))                         # by-name git would fail unlogged
        t.link("usr/sbin/wget", "/usr/bin/ls")                  # a denied name routed elsewhere
        bad = verify(t)
        self.assertEqual(bad.returncode, 1)
        lines = [l for l in bad.stdout.splitlines() if ": verify: drift: " in l]
        self.assertEqual(sorted(lines), sorted([
            "agt-deny-shim: verify: drift: /usr/bin/curl: denied name is not the shim (regular file, mode 0755)",
            "agt-deny-shim: verify: drift: /usr/sbin/wget: denied name is not the shim (symlink to \"/usr/bin/ls\")",
            "agt-deny-shim: verify: drift: /usr/local/sandbox-bin/git: denied name not linked to the shim in "
            "the pinned directory (a by-name call would fail unlogged)",
            "agt-deny-shim: verify: drift: /usr/local/sandbox-bin/id: neither an allowed name nor a shim "
            "link (symlink to \"/usr/bin/ls\")",
            "agt-deny-shim: verify: drift: /usr/bin/perl: denied name is not the shim (regular file, mode 0755)",
        ]), [l for l in bad.stdout.splitlines() if ": verify: drift: " in l])
        self.assertIn("agt-deny-shim: error: verify: 5 drifts found", bad.stderr)
        self.assertEqual(snapshot(r.path), before)
        self.assertEqual(verify(r).returncode, 0)


    def test_an_allowed_command_behind_a_stripped_name_is_refused_and_a_dangling_one_is_drift(self):
        # harden follows a stripped name's link to the file it names: when
        # that file is an allowed command's, it refuses and changes nothing.
        r = debian_like(self)
        r.link("usr/bin/python", "python3")
        run_shim(["allow", "--root", r.path, "--names", ALLOWED], check=0)
        before = snapshot(r.path)
        p = run_shim(["harden", "--root", r.path, "--names", STRIPPED + " python"], check=1)
        self.assertIn("agt-deny-shim: error: harden: refusing to change /usr/bin/python3.11: it is what the "
                      "allowed command python3 runs (/usr/local/sandbox-bin/python3)", p.stderr)
        self.assertIn("nothing was changed", p.stderr)
        self.assertEqual(snapshot(r.path), before)
        run_shim(["harden", "--root", r.path, "--names", STRIPPED], check=0)
        run_shim(["install", "--root", r.path, "--names", DENIED, "--stripped", STRIPPED], check=0)
        os.unlink(r.at(PINNED + "/cat"))
        r.link(PINNED + "/cat", "/usr/bin/removed-cat")         # an allowed link left dangling
        bad = verify(r)
        self.assertEqual(bad.returncode, 1, bad.stdout + bad.stderr)
        self.assertEqual([l for l in bad.stdout.splitlines() if ": verify: drift: " in l], [
            "agt-deny-shim: verify: drift: /usr/local/sandbox-bin/cat: allowed name leads to nothing "
            "(a dangling link)",
        ])


class Chroot(ImageTestCase):
    """The built root, entered with chroot(2): a shimmed real path and a pinned
    name exec the static shim for real; a stripped shell does not run."""

    def run_in_root(self, r, argv, env):
        def enter():
            os.chroot(r.path)
            os.chdir("/")
        return subprocess.run(argv, capture_output=True, env=env, preexec_fn=enter, timeout=60)

    def test_exec_through_a_shimmed_path_is_denied_and_logged(self):
        if os.geteuid() != 0:
            self.fail("chroot needs root (uid %d)" % os.geteuid())
        r = debian_like(self)
        build(self, r)
        os.chmod(r.at("var/log/agt"), 0o777)
        env = {"AGT_DENIED_LOG": "/var/log/agt/denied.log", "PATH": "/usr/local/sandbox-bin"}
        cases = [("/usr/bin/curl", "curl"), ("/bin/curl", "curl"), ("/usr/local/sandbox-bin/git", "git"),
                 ("/usr/sbin/apt-get", "apt-get"), ("/usr/local/bin/wget", "wget")]
        for path, name in cases:
            p = self.run_in_root(r, [path, "-sSL", "https://example.com/x"], env)
            self.assertEqual(p.returncode, 126, (path, p.stderr))
            lines = p.stderr.decode().splitlines()
            self.assertEqual(len(lines), 3, p.stderr)
            rec = parse_record(lines[0])
            self.assertEqual(rec["binary"], name)
            self.assertEqual(rec["path"], path)
            self.assertEqual(rec["argv"], ["-sSL", "https://example.com/x"])
            self.assertEqual(lines[1], HUMAN_LINE % name)
            # No collector's socket in the root: the built-in default is tried.
            self.assertEqual(lines[2], NO_COLLECTOR_LINE)
        with open(r.at("var/log/agt/denied.log")) as f:
            logged = [json.loads(line) for line in f.read().splitlines()]
        self.assertEqual([(x["path"], x["binary"]) for x in logged], cases)

    def test_a_shell_is_the_shim_and_its_real_file_does_not_run(self):
        # os.system("curl x | sh") execs /bin/sh -c "...": a denial of sh,
        # recorded with its arguments, not an unlogged 127.
        if os.geteuid() != 0:
            self.fail("chroot needs root (uid %d)" % os.geteuid())
        r = debian_like(self)
        r.copy("usr/bin/dash", "/usr/bin/dash")   # a real shell: it would run if executable
        os.chmod(r.at("usr/bin/dash"), 0o755)
        os.makedirs(r.at("usr/lib/dash-copy"))
        os.link(r.at("usr/bin/dash"), r.at("usr/lib/dash-copy/dash"))  # a second name, kept by install
        build(self, r)
        os.chmod(r.at("var/log/agt"), 0o777)
        env = {"PATH": "/usr/local/sandbox-bin", "AGT_DENIED_LOG": "/var/log/agt/denied.log"}
        for path, name in (("/bin/sh", "sh"), ("/usr/bin/dash", "dash"), ("sh", "sh")):
            p = self.run_in_root(r, [path, "-c", "curl x | sh"], env)
            self.assertEqual(p.returncode, 126, (path, p.stderr))
            rec = parse_record(p.stderr.decode().splitlines()[0])
            self.assertEqual((rec["binary"], rec["argv"]), (name, ["-c", "curl x | sh"]))
        with open(r.at("var/log/agt/denied.log")) as f:
            self.assertEqual([json.loads(l)["binary"] for l in f.read().splitlines()], ["sh", "dash", "sh"])
        # harden took the exec bits off the real file, so its other name does not run either.
        with self.assertRaises(PermissionError):
            self.run_in_root(r, ["/usr/lib/dash-copy/dash", "-c", "exit 0"], env)


class Docs(ImageTestCase):
    """The man page's image tool subsection and ENVIRONMENT stay in step with
    the commands' option tables (each --help is generated from the table)."""

    def setUp(self):
        super().setUp()
        man_path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "man", "agt-deny-shim.1")
        with open(man_path) as f:
            man = f.read()
        self.subsection = man[man.index(".Ss Image tool commands"):man.index(".Sh THE RECORD")]
        self.environment = man[man.index(".Sh ENVIRONMENT"):man.index(".Sh EXIT STATUS")]

    def test_every_option_is_documented(self):
        for sub in ("install", "allow", "harden", "verify"):
            help_text = run_shim([sub, "--help"], check=0).stdout
            self.assertIn("usage: agt-deny-shim %s --root DIR" % sub, help_text)
            self.assertIn(".It Cm %s" % sub, self.subsection)
            for option in sorted(set(re.findall(r"^  --([a-z-]+)", help_text, re.M)) - {"help", "root"}):
                self.assertRegex(self.subsection, r"Fl -%s(?![\w-])" % re.escape(option), (sub, option))

    def test_every_variable_named_in_help_is_in_environment(self):
        named = set()
        for sub in ("install", "allow", "harden", "verify"):
            named.update(re.findall(r"\$([A-Z_]+)", run_shim([sub, "--help"], check=0).stdout))
        self.assertEqual(named, {"ALLOWED_BIN_NAMES", "DENIED_LOGGED_BIN_NAMES", "STRIP_EXEC_BIN_NAMES"})
        for variable in sorted(named):
            self.assertIn(".It Ev %s\n" % variable, self.environment)


class Readme(ImageTestCase):
    """Issue 3: the README shows how to build the image and pass the
    build-args, and every build-arg it passes is one the Dockerfile takes."""

    def test_shows_build_image_with_the_build_args(self):
        top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        with open(os.path.join(top, "README.md")) as f:
            readme = f.read().replace("\\\n", " ")
        with open(os.path.join(top, "dockerfiles", "Dockerfile.sandbox")) as f:
            args = set(re.findall(r"(?m)^ARG ([A-Z_]+)", f.read()))
        calls = [l for l in readme.splitlines() if l.strip().startswith("scripts/build-image ")]
        self.assertTrue(calls, "README shows no scripts/build-image call")
        passed = set()
        for call in calls:
            passed.update(re.findall(r"--build-arg ([A-Z_]+)=", call))
            if "--base " in call:
                passed.add("BASE_IMAGE")
        self.assertLessEqual({"ALLOWED_BIN_NAMES", "DENIED_LOGGED_BIN_NAMES", "BASE_IMAGE"}, passed)
        self.assertLessEqual(passed, args)


class Dockerfile(ImageTestCase):
    """What the Docker tests cannot see by running the image: no step needs a
    shell, and the base is pinned by digest unless overridden."""

    def test_every_run_step_is_exec_form_through_the_shim(self):
        path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                            "dockerfiles", "Dockerfile.sandbox")
        with open(path) as f:
            lines = [line.strip() for line in f.read().replace("\\\n", " ").splitlines()
                     if line.strip() and not line.lstrip().startswith("#")]
        runs = [line for line in lines if line.split()[0].upper() == "RUN"]
        self.assertEqual([json.loads(line[3:])[:2] for line in runs],
                         [[SHIM_IN_IMAGE, sub] for sub in ("allow", "harden", "install", "verify")])
        self.assertRegex(lines[0], r"^ARG BASE_IMAGE=python:3\.11-slim@sha256:[0-9a-f]{64}$")
        self.assertIn("COPY agt-deny-shim %s" % SHIM_IN_IMAGE, lines)
        self.assertIn("USER 65534:65534", lines)
        self.assertTrue(any(line.startswith("ENV") and "PATH=/usr/local/sandbox-bin" in line for line in lines))
        for arg in ("ALLOWED_BIN_NAMES", "DENIED_LOGGED_BIN_NAMES", "STRIP_EXEC_BIN_NAMES"):
            self.assertTrue(any(line.startswith("ARG %s" % arg) for line in lines), arg)
