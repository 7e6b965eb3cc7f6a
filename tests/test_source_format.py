"""The C++ tree follows .clang-format (Debian 12's clang-format 14): one
layout, so a diff shows only what changed."""
import os
import subprocess
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class SourceFormat(unittest.TestCase):
    def test_every_cc_and_h_file_is_formatted(self):
        files = subprocess.run(["git", "ls-files", "*.cc", "*.h"], cwd=TOP, check=True,
                               capture_output=True, text=True).stdout.split()
        self.assertGreater(len(files), 100, "git ls-files found too few sources in %s" % TOP)
        p = subprocess.run(["clang-format", "--dry-run", "-Werror", "--style=file"] + files, cwd=TOP,
                           capture_output=True, text=True)
        offenders = sorted({line.split(":")[0] for line in p.stderr.splitlines() if ": error:" in line})
        self.assertEqual((p.returncode, offenders), (0, []),
                         "not formatted (run clang-format -i on them):\n" + p.stderr[-3000:])


if __name__ == "__main__":
    unittest.main()
