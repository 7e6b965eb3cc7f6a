"""agt-collector run --metrics-file: Prometheus text format, checked by a
strict parser written here (not a lenient client library), its numbers
compared with the audit file and with what the test wrote into the logs."""
import json
import signal
import math
import os
import re
import stat
import subprocess
import tempfile
import threading
import unittest

from build_paths import COLLECTOR, TOP
from forward_support import child_pids, free_port
from listen_support import SENDER, Container, ListenCollector, modified_copy
from collector_support import record
from run_harness import RunHarness
from strace_support import strace_argv

MAN1 = os.path.join(TOP, "man", "agt-collector.1")
NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL_VALUE = r'(?:[^"\\\n]|\\\\|\\"|\\n)*'
SAMPLE = re.compile(r"(%s)(?:\{(%s)=\"(%s)\"\})? (\S+)$" % (NAME, NAME, LABEL_VALUE))
PER_DESTINATION = {"agt_collector_forward_lag_bytes", "agt_collector_forward_lag_entries"}
REASONS = ["too_long", "nul_bytes", "empty", "not_utf8", "not_json", "cut_record", "unknown_key",
           "duplicate_key", "wrong_type", "argv_too_large", "missing_key", "bad_value", "internal"]


def parse_strict(text):
    """Text format 0.0.4, strictly: every line a HELP, a TYPE or a sample;
    HELP and TYPE once per name and before its samples; a name's samples
    together; counters end in _total; no series twice; values are floats.
    Returns {(name, label_value or None): value} and {name: type}."""
    if not text.endswith("\n"):
        raise AssertionError("metrics file does not end with a newline (cut?)")
    samples, types, helps, finished = {}, {}, set(), set()
    current = None
    for number, line in enumerate(text[:-1].split("\n"), 1):
        where = "line %d: %r" % (number, line)
        m = re.match(r"# (HELP|TYPE) (%s) (.*)$" % NAME, line)
        if m:
            kind, name, rest = m.groups()
            if name != current:
                if current is not None:
                    finished.add(current)
                if name in finished:
                    raise AssertionError("%s: %s comes back after other metrics" % (where, name))
                current = name
            if kind == "HELP":
                if name in helps or not rest:
                    raise AssertionError("%s: a second or empty HELP" % where)
                helps.add(name)
            else:
                if name in types or rest not in ("counter", "gauge"):
                    raise AssertionError("%s: a second TYPE, or not counter/gauge" % where)
                if name in samples:
                    raise AssertionError("%s: TYPE after samples" % where)
                types[name] = rest
            continue
        if line.startswith("#") or not line:
            raise AssertionError("%s: neither HELP, TYPE nor a sample" % where)
        m = SAMPLE.match(line)
        if not m:
            raise AssertionError("%s: not a sample" % where)
        name, label, value, number_text = m.groups()
        if name != current or name not in types or name not in helps:
            raise AssertionError("%s: a sample without its HELP and TYPE just before" % where)
        if types[name] == "counter" and not name.endswith("_total"):
            raise AssertionError("%s: a counter's name must end in _total" % where)
        if not name.startswith("agt_collector_"):
            raise AssertionError("%s: not in the agt_collector_ namespace" % where)
        v = float(number_text)  # raises on anything else
        if types[name] == "counter" and (v < 0 or math.isnan(v)):
            raise AssertionError("%s: a counter below 0" % where)
        key = (name, value if label else None)
        if key in samples:
            raise AssertionError("%s: the same series twice" % where)
        samples[key] = v
    return samples, types


class MetricsFileTest(unittest.TestCase):
    def setUp(self):
        self.h = RunHarness(self, sandboxes=["sb-1", "sb-2"], name="metrics")
        self.prom = os.path.join(self.h.dir, "textfile", "agt-collector.prom")
        os.makedirs(os.path.dirname(self.prom))

    def read(self):
        with open(self.prom) as f:
            return parse_strict(f.read())

    def wait_metric(self, key, value):
        def ok():
            return os.path.exists(self.prom) and self.read()[0].get(key) == value
        self.h.wait_until(ok, "%s = %s in %s" % (key, value, self.prom))

    def test_values_match_the_audit_file_and_the_lines_written(self):
        h = self.h
        h.start("--metrics-file", self.prom, "--metrics-interval", "1")
        # Readers of the file meanwhile never see a part of one.
        stop, seen, errors = threading.Event(), [0], []

        def reader():
            while not stop.is_set():
                try:
                    self.read()
                    seen[0] += 1
                except FileNotFoundError:
                    pass
                except AssertionError as e:
                    errors.append(e)
                    return
        t = threading.Thread(target=reader)
        t.start()
        try:
            for _ in range(3):
                h.deny("sb-1")
            h.deny("sb-2", name="git")
            h.append_raw("sb-1", b"hello\n")
            h.append_raw("sb-1", b'{"nope":1}\n')
            # A NUL run is rejected on its own; the newline after it ends an
            # empty line, rejected as such.
            h.append_raw("sb-2", b"\0" * 300 + b"\n")
            h.append_raw("sb-2", b'{"argv":["' + b"A" * 70000 + b'"]}\n')
            h.deny("sb-2")
            partial = b'{"argv":["still being written'
            h.append_raw("sb-1", partial)
            h.wait_expected()
            self.wait_metric(("agt_collector_entries_written_total", None), 5)
            self.wait_metric(("agt_collector_lines_rejected_total", "empty"), 1)
        finally:
            stop.set()
            t.join()
        self.assertEqual(errors, [])
        self.assertGreater(seen[0], 0)
        samples, _ = self.read()
        self.assertEqual(samples[("agt_collector_unread_bytes", "open")], len(partial))
        self.assertEqual(samples[("agt_collector_unread_bytes", "rotated")], 0)
        self.assertEqual(samples[("agt_collector_sources", None)], 2)
        self.assertGreater(samples[("agt_collector_last_error_timestamp_seconds", None)], 0)
        self.assertGreaterEqual(samples[("agt_collector_checkpoint_age_seconds", None)], 0)
        h.stop()
        # The last write is on the way out: the final numbers, the audit file's.
        samples, types = self.read()
        entries = [json.loads(l) for l in h.lines()]
        self.assertEqual(samples[("agt_collector_entries_written_total", None)], len(entries))
        self.assertEqual(len(entries), 5)
        rejected = {r: samples[("agt_collector_lines_rejected_total", r)] for r in REASONS}
        want = dict.fromkeys(REASONS, 0)
        want.update(not_json=1, unknown_key=1, nul_bytes=1, too_long=1, empty=1)
        self.assertEqual(rejected, want)
        self.assertEqual(samples[("agt_collector_entries_replayed_total", None)], 0)
        self.assertEqual(samples[("agt_collector_syslog_dropped_total", None)], 0)
        self.assertEqual(h.stderr().count(": rejected: "), 5, h.stderr())
        self.assertFalse(os.path.exists(self.prom + ".tmp"))
        self.assertEqual(stat.S_IMODE(os.stat(self.prom).st_mode), 0o644)
        # Every name written is in agt-collector(1), METRICS, and the reverse.
        with open(MAN1) as f:
            documented = set(re.findall(r"^\.It Sy (agt_collector_\w+)",
                                        f.read().split(".Sh METRICS\n")[1].split("\n.Sh ")[0],
                                        re.M))
        # The forward lag has a series per destination: none without forwarding.
        self.assertEqual(set(types) | PER_DESTINATION, documented)
        h.assert_exact()

    def test_restart_counts_replays_and_syslog_drops(self):
        h = self.h
        h.start("--metrics-file", self.prom, syslog=os.path.join(h.dir, "no-syslog"))
        h.deny_and_wait("sb-1", times=2)
        h.stop()
        samples, _ = self.read()
        self.assertEqual(samples[("agt_collector_syslog_dropped_total", None)], 2)
        # A checkpoint older than the audit file: the next start replays.
        old = h.read_checkpoint("sb-1")
        h.start("--metrics-file", self.prom)
        h.deny_and_wait("sb-1")
        h.stop()
        h.write_checkpoint("sb-1", old)
        h.start("--metrics-file", self.prom)
        h.deny("sb-1")
        h.wait_expected()
        h.stop()
        samples, _ = self.read()
        self.assertEqual(samples[("agt_collector_entries_replayed_total", None)], 1)
        self.assertEqual(samples[("agt_collector_entries_written_total", None)], 1)
        h.assert_exact()

    def test_config_keys_and_a_failing_write(self):
        h = self.h
        config = os.path.join(h.dir, "collector.json")
        with open(config, "w") as f:
            json.dump({"output": h.out, "key_file": h.key, "state_dir": h.state,
                       "watch": [h.pattern], "metrics_file": self.prom,
                       "metrics_interval": 1}, f)
        h.start(config=config)
        h.deny_and_wait("sb-2")
        self.wait_metric(("agt_collector_entries_written_total", None), 1)
        h.stop()
        # A directory that is not there: one warning, the daemon goes on.
        missing = os.path.join(h.dir, "gone", "agt.prom")
        h.start("--metrics-file", missing, "--metrics-interval", "1")
        h.deny_and_wait("sb-2")
        h.stop()
        self.assertEqual(h.stderr().count("metrics: open %s.tmp" % missing), 1, h.stderr())
        h.assert_exact()

    def test_bad_values_are_usage_errors(self):
        h = self.h
        base = [COLLECTOR, "run", "--key-file", h.key, "--out", h.out, "--state-dir", h.state,
                "--watch", h.pattern]
        for extra, said in ((["--metrics-interval", "0"], "1..3600"),
                            (["--metrics-interval", "15s"], "1..3600"),
                            (["--metrics-file", "relative.prom"], "not an absolute path")):
            r = subprocess.run(base + extra, capture_output=True, text=True, timeout=30)
            self.assertEqual(r.returncode, 64, r.stderr)
            self.assertIn(said, r.stderr)
        config = os.path.join(h.dir, "bad.json")
        with open(config, "w") as f:
            json.dump({"metrics_interval": 7200}, f)
        r = subprocess.run([COLLECTOR, "check-config", config], capture_output=True, text=True)
        self.assertEqual(r.returncode, 78, r.stderr)
        self.assertIn("metrics_interval", r.stderr)


class MainFeaturesMetricsTest(unittest.TestCase):
    """The series of the socket, the quota, suppression, forwarding and the
    exits on an I/O error, each against the audit file."""

    def setUp(self):
        self.h = RunHarness(self, sandboxes=["sb-1", "sb-2"], name="metrics-main")
        self.prom = os.path.join(self.h.dir, "agt-collector.prom")

    def read(self):
        with open(self.prom) as f:
            return parse_strict(f.read())[0]

    def test_attested_entries_and_forged_messages_match_the_entries(self):
        prom = self.prom
        c = ListenCollector(self, extra=["--metrics-file", prom]).start()
        box = Container()
        self.addCleanup(box.close)
        for n in range(2):
            r = box.run([SENDER, c.socket, record(argv=["genuine-%d" % n])])
            self.assertEqual(r.stdout, "ACK\n", r.stderr)
        copy = modified_copy(SENDER, c.w.join("sender-copy"))
        for n in range(3):
            r = box.run([copy, c.socket, record(argv=["forged-%d" % n])])
            self.assertEqual(r.stdout, "NAK\n", r.stderr)
        self.assertEqual(c.stop(), 0)
        samples = self.read()
        entries = c.entries()
        self.assertEqual(samples[("agt_collector_attested_entries_total", None)],
                         len([e for e in entries if e["event_type"] == "command_denied"]))
        self.assertEqual(samples[("agt_collector_attested_entries_total", None)], 2)
        forged = [e for e in entries if e["event_type"] == "denial_record_forged"]
        self.assertEqual(samples[("agt_collector_forged_messages_total", None)],
                         sum(e["data"]["count"] for e in forged))
        self.assertEqual(samples[("agt_collector_forged_messages_total", None)], 3)
        # --listen alone: the log series are there, at 0.
        self.assertEqual(samples[("agt_collector_entries_written_total", None)], 0)
        self.assertEqual(samples[("agt_collector_sources", None)], 0)

    def test_quota_and_suppression_match_their_entries(self):
        h = self.h
        config = os.path.join(h.dir, "collector.json")
        with open(config, "w") as f:
            json.dump({"output": h.out, "key_file": h.key, "state_dir": h.state,
                       "watch": [h.pattern], "metrics_file": self.prom, "metrics_interval": 1,
                       "sandbox_quota": {"max_entries": 3, "interval_seconds": 1}}, f)
        h.start(config=config)
        h.append_raw("sb-1", b"".join(h.shim_line("sb-1")[1] for _ in range(20)))
        h.deny("sb-2", expect=False)
        os.unlink(h.log_path("sb-2"))
        os.symlink("/etc/passwd", h.log_path("sb-2"))

        def accounted():
            entries = h.entries()
            return (sum(e["data"]["lines"] for e in entries
                        if e["event_type"] == "sandbox_quota_exceeded") +
                    len([e for e in entries if e["sandbox_id"] == "sb-1" and
                         e["event_type"] == "command_denied"]) == 20 and
                    len([e for e in entries if e["event_type"] == "denied_log_suppressed"]) >= 1)
        h.wait_until(accounted, "the flood accounted for and the symlink recorded", timeout=30)
        h.stop()
        samples = self.read()
        entries = h.entries()
        summaries = [e for e in entries if e["event_type"] == "sandbox_quota_exceeded"]
        self.assertGreater(len(summaries), 0)
        self.assertEqual(samples[("agt_collector_quota_summaries_total", None)], len(summaries))
        self.assertEqual(samples[("agt_collector_quota_lines_dropped_total", None)],
                         sum(e["data"]["lines"] for e in summaries))
        self.assertEqual(samples[("agt_collector_log_suppressions_total", None)],
                         len([e for e in entries if e["event_type"] == "denied_log_suppressed"]))
        h.assert_chain(entries)

    def test_forward_lag_exits_and_restarts(self):
        h = self.h
        # Nothing listens there: nothing is acknowledged, the forwarder retries.
        h.start("--metrics-file", self.prom, "--metrics-interval", "1",
                "--forward", "syslog+tcp://127.0.0.1:%d" % free_port())
        h.deny_and_wait("sb-1", times=3)
        h.deny_and_wait("sb-2")
        size = os.path.getsize(h.out)
        lag = [k for k in self.read_when_present() if k[0] == "agt_collector_forward_lag_bytes"]
        self.assertEqual(len(lag), 1, lag)
        destination = lag[0][1]
        self.wait_series(("agt_collector_forward_lag_bytes", destination), size)
        self.wait_series(("agt_collector_forward_lag_entries", destination), 4)
        self.assertEqual(self.read()[("agt_collector_forward_exits_total", None)], 0)
        h.wait_until(lambda: child_pids(h.proc.pid), "the forwarder runs")
        os.kill(child_pids(h.proc.pid)[0], signal.SIGKILL)
        self.wait_series(("agt_collector_forward_exits_total", None), 1)
        self.wait_series(("agt_collector_forward_restarts_total", None), 1)
        h.stop()

    def wait_series(self, key, value):
        self.h.wait_until(lambda: os.path.exists(self.prom) and self.read().get(key) == value,
                          "%s = %s" % (key, value))

    def read_when_present(self):
        self.h.wait_until(lambda: os.path.exists(self.prom), "the metrics file")
        return self.read()

    def test_exits_on_an_io_error_are_counted_across_restarts(self):
        h = self.h
        log = os.path.join(h.dir, "strace.log")
        wrap = strace_argv(log, "inject=fdatasync:error=EIO", paths=[h.out])
        for _ in range(2):
            h.deny("sb-1")  # a record to write: the append's fdatasync fails
            proc = h.start(wrap=wrap)
            self.assertEqual(proc.wait(timeout=60), 74, h.stderr()[-2000:])
        with open(os.path.join(h.state, "io-error.exits")) as f:
            self.assertEqual(f.read(), "%020d\n" % 2)
        h.start("--metrics-file", self.prom)
        h.wait_expected()
        h.stop()
        self.assertEqual(self.read()[("agt_collector_io_error_exits_total", None)], 2)
        h.assert_exact()


class PackagedExampleTest(unittest.TestCase):
    def test_the_packaged_configs_commented_example_is_valid_uncommented(self):
        with open(os.path.join(TOP, "debian", "config.json")) as f:
            text = f.read()
        example = re.findall(r'^  // ("metrics_\w+": .*)$', text, re.M)
        self.assertEqual(len(example), 2, text)
        for line in example:
            text = text.replace("  // " + line, "  " + line)
        with tempfile.TemporaryDirectory() as tmp:
            key = os.path.join(tmp, "audit.key")
            subprocess.run([COLLECTOR, "keygen", "--out", key], check=True, capture_output=True)
            path = os.path.join(tmp, "config.json")
            with open(path, "w") as f:
                f.write(text.replace("/etc/agt-collector/audit.key", key))
            os.chmod(path, 0o600)
            r = subprocess.run([COLLECTOR, "check-config", path], capture_output=True, text=True)
            self.assertEqual((r.returncode, r.stderr), (0, ""), r.stdout)
        # The unit says where the file's directory must be allowed.
        with open(os.path.join(TOP, "debian", "agt-collector.service")) as f:
            self.assertIn("#   ReadWritePaths=/var/lib/prometheus/node-exporter\n", f.read())


class StrictParserTest(unittest.TestCase):
    """The parser must refuse what the format forbids, or it checks nothing."""

    def test_it_refuses_broken_files(self):
        good = ("# HELP agt_collector_a_total A.\n# TYPE agt_collector_a_total counter\n"
                "agt_collector_a_total 1\n")
        parse_strict(good)
        for bad in (good[:-1],                                        # cut
                    good.replace("a_total 1", "a_total x"),           # not a number
                    good.replace("_total", ""),                       # counter without _total
                    good + "agt_collector_a_total 2\n",               # series twice
                    "agt_collector_b 1\n",                            # no HELP/TYPE
                    good + good.split("agt_collector_a_total 1")[0],  # HELP again
                    good.replace("# TYPE", "# TYPO")):
            with self.assertRaises((AssertionError, ValueError), msg=bad):
                parse_strict(bad)


if __name__ == "__main__":
    unittest.main()
