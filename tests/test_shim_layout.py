"""agt-deny-shim's static data: what every denial writes shares few pages.

Each page a denial first touches costs a page fault on every denial. The
zero-initialised data (.bss) holds the shim's small buffers and libc's own
data, which libc writes at every start; the large buffers (the record's, the
image tool's) are in .lbss, which the linker puts after it (see
shim/late_bss.h). So .bss stays within two pages instead of pushing libc's
data 100 KiB on, to a page of its own.
"""
import re
import subprocess
import unittest

from shim_support import SHIM, require_static_shim

PAGE = 4096
SECTION_RE = re.compile(r"^\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s")


def sections(path):
    """name -> (type, address, size), from the section headers (which the
    stripped binary keeps)."""
    proc = subprocess.run(["readelf", "-SW", path], capture_output=True, text=True, check=True)
    found = {}
    for line in proc.stdout.splitlines():
        m = SECTION_RE.match(line)
        if m:
            found[m.group(1)] = (m.group(2), int(m.group(3), 16), int(m.group(5), 16))
    return found


class StaticData(unittest.TestCase):

    def setUp(self):
        require_static_shim(self)
        self.sections = sections(SHIM)

    def test_bss_spans_at_most_two_pages(self):
        kind, address, size = self.sections[".bss"]
        self.assertEqual(kind, "NOBITS")
        pages = (address + size - 1) // PAGE - address // PAGE + 1
        self.assertLessEqual(pages, 2, "%d bytes of .bss over %d pages" % (size, pages))

    def test_large_buffers_lie_after_bss_and_take_no_file_space(self):
        self.assertIn(".lbss", self.sections)
        kind, address, size = self.sections[".lbss"]
        self.assertEqual(kind, "NOBITS")
        _, bss_address, bss_size = self.sections[".bss"]
        self.assertGreaterEqual(address, bss_address + bss_size)
        # The record's buffer alone is over a page.
        self.assertGreater(size, PAGE)


if __name__ == "__main__":
    unittest.main()
