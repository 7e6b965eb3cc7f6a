#!/usr/bin/env python3
"""Runs the end-to-end tests (tests/test_*.py, unittest style).

A skipped test counts as failed: a check that cannot run (no Docker, not root)
must be seen, never silently passed over. The last line is
"integration: P passed, F failed"; before it, each test's wall time and the
slowest ten, so a slow harness shows where it is.
"""
import argparse
import os
import sys
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))


class CountingResult(unittest.TextTestResult):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.passed = 0
        self.durations = []  # (seconds, test id), one per finished test
        self.between = 0.0  # outside any test: class and module set-up/tear-down
        # The time outside tests, by the class whose first test it preceded:
        # its set-up (and the tear-down of the class before it).
        self.between_by_class = {}
        self._started = 0.0
        self._stopped = None

    def startTestRun(self):
        super().startTestRun()
        self._stopped = time.monotonic()  # the first class's set-up counts too

    def startTest(self, test):
        self._started = time.monotonic()
        if self._stopped is not None:
            gap = self._started - self._stopped
            self.between += gap
            name = type(test).__module__ + "." + type(test).__qualname__
            self.between_by_class[name] = self.between_by_class.get(name, 0.0) + gap
        super().startTest(test)

    def stopTest(self, test):
        elapsed = time.monotonic() - self._started
        self.durations.append((elapsed, test.id()))
        self.stream.writeln("  (%.2f s)" % elapsed)
        super().stopTest(test)
        self._stopped = time.monotonic()

    def addSuccess(self, test):
        super().addSuccess(test)
        self.passed += 1

    def addSkip(self, test, reason):
        # Reported as a failure: a skipped security check is not a pass.
        self.failures.append((test, "skipped, which counts as failed: %s" % reason))
        self.stream.writeln("SKIPPED (counted as failed): %s" % reason)


def iter_tests(suite):
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from iter_tests(item)
        else:
            yield item


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-k", dest="pattern", action="append", default=[],
                        help="run only tests whose id contains PATTERN")
    args = parser.parse_args()

    sys.path.insert(0, HERE)
    loaded = unittest.defaultTestLoader.discover(HERE, pattern="test_*.py", top_level_dir=HERE)
    selected = unittest.TestSuite()
    for test in iter_tests(loaded):
        if not args.pattern or any(p in test.id() for p in args.pattern):
            selected.addTest(test)

    runner = unittest.TextTestRunner(stream=sys.stdout, verbosity=2, resultclass=CountingResult)
    started = time.monotonic()
    result = runner.run(selected)
    print("%.1f s in all: %.1f s in tests, %.1f s between them (class set-up such as"
          " the Docker image build); slowest tests:"
          % (time.monotonic() - started, sum(d for d, _ in result.durations), result.between))
    for seconds, test_id in sorted(result.durations, reverse=True)[:10]:
        print("  %7.2f s  %s" % (seconds, test_id))
    print("slowest set-ups (the time before a class's first test):")
    for test_class, seconds in sorted(result.between_by_class.items(), key=lambda kv: -kv[1])[:5]:
        print("  %7.2f s  %s" % (seconds, test_class))
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    print("integration: %d passed, %d failed" % (result.passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
