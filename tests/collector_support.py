"""Shared helpers for the agt-collector end-to-end tests."""
import json
import os
import subprocess
import tempfile

from build_paths import BUILD, COLLECTOR, HERE, SHIM, TOP  # noqa: F401 (re-exported)

VECTORS = os.path.join(HERE, "data", "collector-vectors")


def run_collector(*args, **kwargs):
    return subprocess.run([COLLECTOR] + [str(a) for a in args], capture_output=True,
                          text=True, timeout=kwargs.pop("timeout", 120), **kwargs)


def record(**overrides):
    """A valid shim record line (compact, sorted keys, as the shim writes it)."""
    rec = {"argc": 3, "argv": ["-sSL", "https://example.com/x"], "argv0": "curl",
           "binary": "curl", "confined": True, "event": "command_denied", "gid": 65534,
           "host": "sb-1", "issue": 2662, "path": "/usr/bin/curl", "pid": 7, "ppid": 1,
           "redactions": 0, "timestamp": "2026-06-14T10:00:00Z",
           "timestamp_ns": 1781431200123456789, "truncated": False, "uid": 65534,
           "version": "0.1.0"}
    rec.update(overrides)
    for k in [k for k, v in rec.items() if v is ...]:
        del rec[k]
    return json.dumps(rec, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class Workdir:
    """A temporary directory with a 32-byte key file (mode 0600)."""

    def __init__(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="agt-collector-e2e-")
        self.path = self._tmp.name
        self.key = os.urandom(32)
        self.key_file = self.join("key.bin")
        with open(self.key_file, "wb") as f:
            f.write(self.key)
        os.chmod(self.key_file, 0o600)

    def join(self, *names):
        return os.path.join(self.path, *names)

    def write(self, name, data, mode=0o644):
        path = self.join(name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())
        os.chmod(path, mode)
        return path

    def cleanup(self):
        self._tmp.cleanup()


# The members of an entry's data that the collector adds to the record's
# (agt-audit-jsonl(5)): where it came from, who vouches for the sender, and
# the signed copy of the labels.
COLLECTOR_DATA_KEYS = ("attestation", "labels", "source")


def record_part(data):
    """An entry's data without the collector's own members: the record's fields."""
    return {k: v for k, v in data.items() if k not in COLLECTOR_DATA_KEYS}


def read_entries(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]
