"""agt-deny-shim argv fuzz: random bytes, huge counts, near ARG_MAX. Every
output is valid UTF-8 JSON within the byte limits, every exit is 126."""
import os

from seeded_random import seeded_random
from shim_support import ShimTestCase, run

MAX_ARG_STRLEN = 131072  # the kernel's limit for one argument


def random_arg(rng, size):
    # No NUL: exec arguments are C strings. Bias toward the interesting bytes.
    pool = [bytes([b]) for b in range(1, 256)] + [b'"', b"\\", b"\xe2\x80\xa8", b"\xf0\x9f\x98\x80",
                                                  b"\xc3", b"\xed\xa0\x80", b"AKIA", b"://", b"@",
                                                  b"--password", b"=", b"Bearer "]
    out = b"".join(rng.choice(pool) for _ in range(size))
    return out[:MAX_ARG_STRLEN - 1] or b"x"


class ArgvFuzz(ShimTestCase):

    def check(self, argv0, args, env=None):
        d = run([argv0] + args, executable=self.sandbox.link("curl"), env=env, timeout=60)
        rec = self.assertValidDenial(d, "curl")
        self.assertEqual(rec["argc"], 1 + len(args))
        self.assertLessEqual(len(rec["argv"]), len(args))
        if len(rec["argv"]) < len(args):
            self.assertTrue(rec["truncated"])
        return rec

    def test_random_bytes(self):
        rng = seeded_random(self, 2662)
        for _ in range(150):
            count = rng.choice([0, 1, 2, 5, 20, 100])
            args = [random_arg(rng, rng.choice([0, 1, 3, 40, 300, 2000])) for _ in range(count)]
            argv0 = random_arg(rng, rng.choice([1, 10, 700]))
            with self.subTest(count=count):
                self.check(argv0, args)

    def test_huge_argument_count(self):
        args = [b"a"] * 200000
        rec = self.check(b"curl", args)
        self.assertTrue(rec["truncated"])

    def test_near_arg_max(self):
        arg_max = os.sysconf("SC_ARG_MAX")
        rng = seeded_random(self, 2663)
        # Fill ARG_MAX with maximal arguments, leaving room for pointers and env.
        budget = arg_max - 64 * 1024
        args = []
        while budget > MAX_ARG_STRLEN:
            args.append(bytes(rng.randrange(1, 256) for _ in range(MAX_ARG_STRLEN - 1)))
            budget -= MAX_ARG_STRLEN + 8
        log = self.sandbox.join("denied.log")
        rec = self.check(b"curl", args, env={"AGT_DENIED_LOG": log})
        self.assertTrue(rec["truncated"])
        with open(log, "rb") as f:
            self.assertLessEqual(len(f.read()), 3585)

    def test_every_byte_alone(self):
        args = [bytes([b]) for b in range(1, 256)]
        rec = self.check(b"curl", args[:127])  # 0x01-0x7f
        self.assertEqual(rec["argv"], [chr(b) for b in range(1, 128)])
        rec = self.check(b"curl", args[127:])  # 0x80-0xff
        self.assertEqual(len(rec["argv"]), 128)
        for s in rec["argv"]:
            self.assertEqual(s, "\ufffd")  # bytes 0x80-0xff alone are never valid UTF-8
