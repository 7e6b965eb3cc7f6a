#!/usr/bin/env python3
"""Holds the canonical JSON writer to Python's json.dumps(sort_keys=True).

Usage: fuzz_canonical_vs_python.py HARNESS DIR...   (scripts/fuzz runs it)

Runs the canonical_json libFuzzer harness over every file in DIRs with
AGT_FUZZ_PRINT set (one output line per input), and checks each value the
writer accepted: its bytes must be exactly json.dumps(json.loads(input),
sort_keys=True). The writer may refuse what Python reads (floats, integers
beyond 64 bits, lone surrogates, duplicate keys): the audit schema has none.
Prints "canonical vs python: N accepted, M refused, K differ"; exits 1 when
any differ.
"""
import json
import os
import subprocess
import sys

BATCH = 500  # files per harness run (argument lists stay small)


def input_id(data):
    """FNV-1a, as the harness prints it before each output: libFuzzer may run
    an input more than once or out of the order given, so outputs are
    matched to files by it, never by position."""
    h = 14695981039346656037
    for b in data:
        h = ((h ^ b) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def main():
    harness, dirs = sys.argv[1], sys.argv[2:]
    files = sorted(os.path.join(d, name) for d in dirs if os.path.isdir(d)
                   for name in os.listdir(d))
    accepted = refused = differ = 0
    env = dict(os.environ, AGT_FUZZ_PRINT="1")
    for start in range(0, len(files), BATCH):
        batch = files[start:start + BATCH]
        r = subprocess.run([harness, "-runs=1"] + batch, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, check=True)
        outputs = {}
        for out_line in r.stdout.decode("ascii").splitlines():
            ident, _, rest = out_line.partition(" ")
            outputs[ident] = rest
        for path in batch:
            with open(path, "rb") as f:
                data = f.read()
            line = outputs.get(input_id(data))
            if line is None:
                sys.exit("canonical vs python: no output for %s" % path)
            if line == "refused":
                refused += 1
                continue
            accepted += 1
            want = json.dumps(json.loads(data.decode("utf-8")), sort_keys=True)
            if line[len("canonical "):] != want:
                differ += 1
                print("differs: %s\n  ours:   %s\n  python: %s" % (path, line[10:200], want[:200]))
    print("canonical vs python: %d accepted, %d refused, %d differ" % (accepted, refused, differ))
    return 1 if differ or accepted == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
