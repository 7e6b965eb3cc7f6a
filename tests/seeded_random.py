"""Random numbers for the randomised end-to-end tests, replayable.

Each test prints the seed it uses; AGT_TEST_SEED=N makes every randomised test
use N instead, so a failing run can be run again with the same choices:

    AGT_TEST_SEED=N scripts/test -k TEST_NAME
"""
import os
import random
import sys


def seeded_random(test, fixed=None):
    """A random.Random for `test` (a TestCase): seeded from AGT_TEST_SEED when
    set, else from `fixed` (the same inputs every run), else fresh (the crash
    tests hit different moments each run)."""
    text = os.environ.get("AGT_TEST_SEED")
    if text:
        try:
            seed = int(text, 0)
        except ValueError:
            raise ValueError("AGT_TEST_SEED is not a number: %r" % text) from None
    elif fixed is not None:
        seed = fixed
    else:
        seed = int.from_bytes(os.urandom(4), "big")
    sys.stdout.write("\n  seed %d (replay: AGT_TEST_SEED=%d scripts/test -k %s)\n"
                     % (seed, seed, test.id().rsplit(".", 1)[-1]))
    sys.stdout.flush()
    return random.Random(seed)
