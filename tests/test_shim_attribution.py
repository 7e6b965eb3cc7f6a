"""agt-deny-shim attribution: how the shim was reached, with real execs.

A tiny C helper, built here with the system compiler, execs the static shim
through a file descriptor (execveat AT_EMPTY_PATH, /proc/self/fd/N, fexecve of
a memfd copy); scripts with a "#!" line naming a denied command are exec'd by
the kernel itself.
"""
import os
import subprocess

from shim_support import SHIM, Denial, ShimTestCase, built_helper, run

HELPER_SOURCE = r"""
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* exec_via MODE PATH ARGV0 [ARGS...]: execs PATH through a descriptor. */
int main(int argc, char** argv) {
  if (argc < 4) return 2;
  const char* mode = argv[1];
  char** child_argv = argv + 3;
  char* envp[] = {NULL};
  int fd = open(argv[2], O_RDONLY);
  if (fd < 0) { perror("open"); return 2; }
  if (strcmp(mode, "execveat") == 0) {
    syscall(SYS_execveat, fd, "", child_argv, envp, AT_EMPTY_PATH);
  } else if (strcmp(mode, "proc-fd") == 0) {
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    execve(path, child_argv, envp);
  } else if (strcmp(mode, "memfd") == 0) {
    struct stat st;
    int mem = memfd_create("curl", 0);
    if (mem < 0 || fstat(fd, &st) != 0) { perror("memfd"); return 2; }
    if (sendfile(mem, fd, NULL, st.st_size) != st.st_size) { perror("sendfile"); return 2; }
    fexecve(mem, child_argv, envp);
  }
  perror("exec");
  return 3;
}
"""

def exec_via_helper():
    return built_helper("exec_via", ("exec_via.c", HELPER_SOURCE),
                        lambda src, out, work: ["cc", "-O2", "-Wall", "-o", out, src])


class Attribution(ShimTestCase):

    def through_fd(self, mode):
        link = self.sandbox.link("curl")
        log = self.sandbox.join("denied.log")
        proc = subprocess.run([exec_via_helper(), mode, link, "curl", "-u", "me:pw", "https://example.com"],
                              env={"AGT_DENIED_LOG": log}, capture_output=True, timeout=30)
        return Denial(proc)

    def test_through_a_file_descriptor(self):
        # execveat(AT_EMPTY_PATH), an exec of /proc/self/fd/N, fexecve of a
        # memfd copy (musl and glibc use execveat, or /proc/self/fd/N).
        for mode, path in (("execveat", r"^/dev/fd/\d+$"), ("proc-fd", r"^/proc/self/fd/\d+$"),
                           ("memfd", r"^(/dev/fd|/proc/self/fd)/\d+$")):
            with self.subTest(mode=mode):
                d = self.through_fd(mode)
                rec = self.assertValidDenial(d, "unknown")
                self.assertEqual(rec["via"], "fd")
                self.assertRegex(rec["path"], path)
                self.assertEqual(rec["argv0"], "curl")  # what the caller claimed, kept
                # the claimed name's options are redacted (curl's -u)
                self.assertEqual(rec["argv"], ["-u", "me:[REDACTED]", "https://example.com"])

    def test_empty_argv0_with_arguments_is_named_by_the_path(self):
        # bash's `exec -a '' curl x`
        d = run(["", "https://example.com"], executable=self.sandbox.link("curl"))
        rec = self.assertValidDenial(d, "curl")
        self.assertEqual(rec["via"], "path")
        self.assertEqual(rec["argv0"], "")

    def script(self, name, first_line):
        path = self.sandbox.join("scripts", name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(first_line + "\nanything\n")
        os.chmod(path, 0o755)
        return path

    def test_a_script_named_ls_whose_shebang_names_curl(self):
        script = self.script("ls", "#!" + self.sandbox.link("curl"))
        d = run([script, "-la", "/etc"])
        rec = self.assertValidDenial(d, "curl")
        self.assertEqual(rec["via"], "script")
        self.assertEqual(rec["script"], script)
        self.assertEqual(rec["path"], script)
        self.assertEqual(rec["argv0"], self.sandbox.link("curl"))
        self.assertEqual(rec["argv"], [script, "-la", "/etc"])

    def test_a_shebang_with_an_argument(self):
        script = self.script("ls", "#!%s -sSL" % self.sandbox.link("wget"))
        d = run([script, "x"])
        rec = self.assertValidDenial(d, "wget")
        self.assertEqual(rec["via"], "script")
        self.assertEqual(rec["script"], script)
        self.assertEqual(rec["argv"], ["-sSL", script, "x"])

    def test_a_spoofed_script_claim_through_a_denied_link_keeps_its_record_honest(self):
        # argv shaped like a script exec, but the kernel exec'd the link
        # directly: the script is the link itself, shown as such.
        link = self.sandbox.link("curl")
        d = run(["/usr/bin/wget", link], executable=link)
        rec = d.record
        self.assertEqual(d.returncode, 126)
        self.assertEqual(rec["script"], link)
        self.assertEqual(rec["path"], link)

    def test_the_usual_exec_is_via_path(self):
        d = run(["curl", "x"], executable=self.sandbox.link("curl"))
        rec = self.assertValidDenial(d, "curl")
        self.assertEqual(rec["via"], "path")
        self.assertNotIn("script", rec)

    def test_through_the_shims_own_name_is_via_argv0(self):
        d = run(["/usr/bin/ssh", "h"], executable=SHIM)
        rec = self.assertValidDenial(d, "ssh")
        self.assertEqual(rec["via"], "argv0")
