"""Runs the redaction corpus (tests/data/redaction-corpus.txt) through the
static shim: shared by scripts/redaction-corpus (prints the figures) and
tests/test_shim_redaction_corpus.py (holds the leak count to 0).

A line is a command line in shell quoting with each secret marked ⟦...⟧.
A leak is a marked secret shown in the clear in the record (stderr or log);
an over-redaction is an argument that came out other than with exactly its
marked secrets replaced by [REDACTED] (more hidden than marked).
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "data", "redaction-corpus.txt")
MARK = re.compile("⟦(.*?)⟧")
MARKER = "[REDACTED]"


def load(path=CORPUS):
    """[(line number, marked argv)] for every command line of the corpus."""
    cases = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cases.append((number, shlex.split(line)))
    return cases


def written_text(raw):
    """What the shim wrote where a secret could show: every string in its
    JSON records, and every line that is no record, as text. A record's
    numbers (pid, timestamp_ns) are left out: a short numeric secret
    (--pin 1234) would match them by chance."""
    out = []
    for line in raw.split(b"\n"):
        try:
            out.extend(_strings(json.loads(line)))
        except ValueError:
            out.append(line.decode("utf-8", "replace"))
    return "\n".join(out)


def _strings(value):
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [k] + _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


class Outcome:
    def __init__(self, number, marked, record, stderr, logged):
        self.number = number
        self.marked = marked
        self.argv = [MARK.sub(r"\1", a) for a in marked]
        self.secrets = [s for a in marked for s in MARK.findall(a)]
        self.expected = [MARK.sub(MARKER, a) for a in marked[1:]]
        self.record = record
        shown = (record or {}).get("argv", []) + [(record or {}).get("argv0", "")]
        text = "\n".join(shown)
        written = written_text(stderr + logged)
        self.leaked = [s for s in self.secrets if s in text or s in written]
        self.over = [(e, a) for e, a in zip(self.expected, (record or {}).get("argv", []))
                     if e != a and not any(s in a for s in self.secrets)]

    def describe(self):
        return "line %d: %s" % (self.number, shlex.join(self.argv))


def run_corpus(shim, cases=None):
    cases = cases if cases is not None else load()
    work = tempfile.mkdtemp(prefix="agt-redaction-corpus-")
    try:
        log = os.path.join(work, "denied.log")
        outcomes = []
        for number, marked in cases:
            tool = MARK.sub(r"\1", marked[0])
            link = os.path.join(work, "bin", tool)
            if not os.path.lexists(link):
                os.makedirs(os.path.dirname(link), exist_ok=True)
                os.symlink(shim, link)
            argv = [MARK.sub(r"\1", a) for a in marked]
            proc = subprocess.run(argv, executable=link, env={"AGT_DENIED_LOG": log},
                                  capture_output=True, timeout=30)
            with open(log, "rb") as f:
                logged = f.read()
            os.unlink(log)
            try:
                record = json.loads(proc.stderr.split(b"\n")[0])
            except ValueError:
                record = None
            if proc.returncode != 126 or record is None:
                raise RuntimeError("line %d: exit %d, stderr %r" % (number, proc.returncode, proc.stderr[:200]))
            outcomes.append(Outcome(number, marked, record, proc.stderr, logged))
        return outcomes
    finally:
        shutil.rmtree(work, ignore_errors=True)


def summary(outcomes):
    tools = {o.argv[0] for o in outcomes}
    secrets = sum(len(o.secrets) for o in outcomes)
    leak_lines = [o for o in outcomes if o.leaked]
    over_lines = [o for o in outcomes if o.over]
    clean = [o for o in outcomes if not o.secrets]
    return {
        "lines": len(outcomes), "tools": len(tools), "secrets": secrets,
        "lines_with_secrets": len(outcomes) - len(clean), "clean_lines": len(clean),
        "leaked_secrets": sum(len(o.leaked) for o in outcomes), "leak_lines": leak_lines,
        "over_lines": over_lines,
        "over_clean_lines": [o for o in over_lines if not o.secrets],
    }
