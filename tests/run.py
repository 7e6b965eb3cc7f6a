#!/usr/bin/env python3
"""Runs the end-to-end tests (tests/test_*.py, unittest style).

A skipped test counts as failed: a check that cannot run (no Docker, not root)
must be seen, never silently passed over. The last line is
"integration: P passed, F failed".
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
        self._started = 0.0

    def startTest(self, test):
        self._started = time.monotonic()
        super().startTest(test)

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
    result = runner.run(selected)
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    print("integration: %d passed, %d failed" % (result.passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
