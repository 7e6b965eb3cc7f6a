"""The load benchmark's reader (scripts/collector_load.py): while the load
runs it only counts the records in the complete lines it reads and notes
when how many were out; each record's latency comes from its timestamp in
the file afterwards. These check that counting and that settling on small
files written here, with figures known in advance."""
import os
import sys
import tempfile
import unittest

from build_paths import TOP

sys.path.insert(0, os.path.join(TOP, "scripts"))
import collector_load  # noqa: E402  (a script's module, found through scripts/)


def record(ns):
    return b'{"argc":1,"timestamp":"2026-12-04T00:00:00Z","timestamp_ns":%d}\n' % ns


class Reader(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        self.path = os.path.join(self.dir.name, "out")
        self.out = open(self.path, "wb", buffering=0)
        self.addCleanup(self.out.close)
        self.tail = collector_load.Tail(self.path)
        self.addCleanup(self.tail.close)

    def test_only_complete_lines_are_counted(self):
        self.assertEqual(self.tail.new_records(), 0)
        line = record(1000)
        self.out.write(record(1) + line[:20])  # one line and the start of the next
        self.assertEqual(self.tail.new_records(), 1)
        self.out.write(line[20:])
        self.assertEqual(self.tail.new_records(), 1)
        # A line without a record (the collector's own entries) counts none.
        self.out.write(b'{"event_type": "collector_started"}\n' + record(2000))
        self.assertEqual(self.tail.new_records(), 1)
        self.assertEqual(self.tail.timestamps(), [1, 1000, 2000])

    def test_a_line_longer_than_the_buffer_is_counted_once_whole(self):
        long_line = b'{"pad":"' + b"x" * (3 << 20) + b'","timestamp_ns":7}\n'
        self.out.write(long_line[:(1 << 20) + 5])
        self.assertEqual(self.tail.new_records(), 0)
        self.out.write(long_line[(1 << 20) + 5:] + record(8))
        self.assertEqual(self.tail.new_records(), 2)
        self.assertEqual(self.tail.timestamps(), [7, 8])

    def test_settle_gives_each_record_the_first_time_it_was_out(self):
        m = collector_load.Measure("side", self.tail)
        self.out.write(record(10) + record(20))  # the warm-up
        m.seen += self.tail.new_records()
        m.out_at(100, m.seen)
        m.begin()
        self.assertEqual((m.base, m.out(), m.outs), (2, 2, []))
        self.out.write(record(1000) + record(1500))
        m.seen += self.tail.new_records()
        m.out_at(3000, m.seen)
        m.out_at(3500, m.seen)  # nothing new: not an observation
        self.out.write(record(2000))
        m.seen += self.tail.new_records()
        m.out_at(9000, m.seen)
        m.first_ns = 0
        m.settle()
        self.assertEqual(m.latencies, [2000e-9, 1500e-9, 7000e-9])
        self.assertEqual(m.last_ns, 9000)
        self.assertEqual(m.out() - m.base, 3)

    def test_settle_refuses_a_file_with_fewer_records_than_were_out(self):
        m = collector_load.Measure("side", self.tail)
        m.out_at(100, 3)
        self.out.write(record(1))
        with self.assertRaises(SystemExit) as e:
            m.settle()
        self.assertIn("side: 3 records out, 1 in", str(e.exception))


if __name__ == "__main__":
    unittest.main()
