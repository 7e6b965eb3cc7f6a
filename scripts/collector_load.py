"""The load section of scripts/bench-collector-run: `agt-collector run` and
rsyslog's imfile, one after the other, on the same paths with the same
records and the same writers, each measured from outside the same way.

Writers: W forked processes, each appending to its share of the logs in
rounds (one record per log per round), as fast as they can or at --rate
records/s in all, a bounded count per log. Each record is a real shim
record whose timestamp/timestamp_ns are the instant of its append, so the
reader needs no bookkeeping: latency = seen - timestamp_ns (CLOCK_REALTIME).

Reader (this process): one inotify instance, so the order of what happened
is the order of its queue. Collector: IN_MODIFY on the audit file (its new
entries are read: written, not yet known durable) and, in the state
directory, the chain head written (IN_MODIFY on chain.head, written in place
since the head has two slots; an older build's IN_MOVED_TO of chain.head or
of a per-source checkpoint, published by a rename): the collector writes
either only after fdatasync of the entries they cover returned, so every
entry read before the event is durable by then. Each commit writes the head
once and appends one journal frame after it: one checkpoint write.
rsyslog: IN_MODIFY on its output file (the line copied).

The reader only counts while the load runs: the records in the new complete
lines it reads (a byte search, at C speed) and, at each event that makes
them out, the time and how many are out by then. Each record's timestamp
is parsed after the run, from the file (Measure.settle). Parsing them as
they came cost the reader a third of a core at 90,000 records/s, and a
reader that falls behind stamps records late: measured at that rate, it
reported seconds of latency while the collector's durable head never
trailed the writers by more than about 0.2 s.
"""
import ctypes
import os
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

IN_MODIFY = 0x2
IN_MOVED_TO = 0x80
IN_Q_OVERFLOW = 0x4000
_libc = ctypes.CDLL(None, use_errno=True)
TS_RE = re.compile(rb'"timestamp_ns": ?(\d+)')
TS_KEY = b'"timestamp_ns":'  # what TS_RE matches first: counted, not parsed, during the run
WRITERS = 2


def remove_bench_dir(root):
    """Removes a bench's temporary tree. The collector made its logs
    append-only (FS_APPEND_FL), which rmtree cannot unlink through: clear the
    attribute first, and say what could not be removed rather than leave it."""
    subprocess.run(["chattr", "-R", "-a", root], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    shutil.rmtree(root, onerror=lambda _f, path, exc: print(
        "bench: left behind %s: %s" % (path, exc[1]), file=sys.stderr))


def percentile(values, p):
    values = sorted(values)
    k = min(len(values) - 1, max(0, int(round(p / 100.0 * (len(values) - 1)))))
    return values[k]


def proc_cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_status_kib(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


class Inotify:
    def __init__(self):
        self.fd = _libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if self.fd < 0:
            sys.exit("bench-collector-run: error: inotify_init1: %s" %
                     os.strerror(ctypes.get_errno()))
        self.overflows = 0

    def add(self, path, mask):
        wd = _libc.inotify_add_watch(self.fd, path.encode(), mask)
        if wd < 0:
            sys.exit("bench-collector-run: error: inotify_add_watch %s: %s" %
                     (path, os.strerror(ctypes.get_errno())))
        return wd

    def events(self, timeout):
        """[(wd, mask, name)] in queue order; [] after `timeout` seconds of nothing."""
        r, _, _ = select.select([self.fd], [], [], timeout)
        if not r:
            return []
        try:
            buf = os.read(self.fd, 1 << 20)
        except BlockingIOError:
            return []
        out, i = [], 0
        while i < len(buf):
            wd, mask, _cookie, length = struct.unpack_from("iIII", buf, i)
            name = buf[i + 16:i + 16 + length].rstrip(b"\0")
            i += 16 + length
            if mask & IN_Q_OVERFLOW:
                self.overflows += 1
            out.append((wd, mask, name))
        return out

    def close(self):
        os.close(self.fd)


class CompleteLines:
    """Reads a file descriptor to its end, piece by piece, into one buffer
    used again and again: a fresh 1 MiB object per read is fresh memory,
    which this kind of virtual machine makes the reader pay for page by
    page. A line cut by a read is kept for the next one."""
    def __init__(self, fd):
        self.fd = fd
        self.buf = bytearray(1 << 20)
        self.held = 0  # bytes of an incomplete last line, at its start

    def pieces(self):
        """After each read, how many bytes at the buffer's start are complete
        lines (valid until the next read)."""
        while True:
            if self.held == len(self.buf):  # one line longer than the buffer
                self.buf.extend(bytes(len(self.buf)))
            n = os.readv(self.fd, [memoryview(self.buf)[self.held:]])
            if n == 0:
                return
            end = self.held + n
            cut = self.buf.rfind(b"\n", 0, end) + 1
            yield cut
            self.buf[:end - cut] = self.buf[cut:end]
            self.held = end - cut


class Tail:
    """How many records (timestamp_ns keys) the new complete lines of a file
    hold; their timestamps are parsed later, from the file (timestamps)."""
    def __init__(self, path):
        self.path = path
        self.fd = os.open(path, os.O_RDONLY)
        self.lines = CompleteLines(self.fd)

    def new_records(self):
        return sum(self.lines.buf.count(TS_KEY, 0, cut) for cut in self.lines.pieces())

    def timestamps(self):
        """Every record's timestamp_ns in the file, in file order."""
        fd = os.open(self.path, os.O_RDONLY)
        try:
            lines = CompleteLines(fd)
            return [int(m.group(1)) for cut in lines.pieces()
                    for m in TS_RE.finditer(lines.buf, 0, cut)]
        finally:
            os.close(fd)

    def close(self):
        os.close(self.fd)


def shim_record(shim, root):
    """One record of the real shim (exec'd through a `curl` symlink), as the
    template every writer appends with its own timestamps."""
    curl = os.path.join(root, "curl")
    os.symlink(shim, curl)
    scratch = os.path.join(root, "one.log")
    env = {"PATH": "/usr/bin:/bin", "AGT_DENIED_LOG": scratch}
    subprocess.run([curl, "-sSL", "https://example.com/install.sh"], env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(scratch, "rb") as f:
        line = f.readline()
    os.unlink(scratch)
    m = re.search(rb'"timestamp":"[^"]*","timestamp_ns":\d+', line)
    if not m:
        sys.exit("bench-collector-run: error: no timestamp in the shim's record: %r" % line)
    return line[:m.start()], line[m.end():]


def run_writers(paths, per_log, rate, head, tail, go_file):
    """Forks WRITERS processes; returns their pids. Each waits for `go_file`."""
    pids = []
    for w in range(WRITERS):
        mine = paths[w::WRITERS]
        pid = os.fork()
        if pid == 0:
            try:
                fds = [os.open(p, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC) for p in mine]
                while not os.path.exists(go_file):
                    time.sleep(0.001)
                # Paced: this writer's share of `rate`, checked every record.
                interval = WRITERS / rate if rate else 0.0
                start = time.monotonic()
                n = 0
                stamp_sec, stamp = -1, b""
                for _ in range(per_log):
                    for fd in fds:
                        if interval:
                            due = start + n * interval
                            now = time.monotonic()
                            if due > now:
                                time.sleep(due - now)
                        ns = time.time_ns()
                        sec = ns // 1000000000
                        if sec != stamp_sec:
                            stamp_sec = sec
                            stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(sec)).encode()
                        os.write(fd, b"%s\"timestamp\":\"%s\",\"timestamp_ns\":%d%s"
                                 % (head, stamp, ns, tail))
                        n += 1
                os._exit(0)
            except BaseException as e:  # a writer must never fall back into the parent's code
                sys.stderr.write("writer: %r\n" % e)
                os._exit(1)
        pids.append(pid)
    return pids


def wait_writers(pids):
    for pid in pids:
        _, status = os.waitpid(pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit("bench-collector-run: error: a writer failed")


class Measure:
    """What one side did with `total` records. While the load runs, only
    when records came out (out_at); their latencies after it (settle)."""
    def __init__(self, name, tail, collector=False):
        self.name = name
        self.tail = tail  # the side's output file
        self.collector = collector  # checkpoint writes are counted
        self.seen = 0  # records the output held so far (out or not yet)
        self.outs = []  # (time_ns, records out in all by then), from `base` on
        self.base = 0  # records out before the measured load (the warm-up)
        self.latencies = []  # seconds, one per measured record (settle)
        self.first_ns = None
        self.last_ns = None
        self.cpu = 0.0
        self.rss_kib = 0
        self.restart_rss_kib = 0  # peak RSS of a restart on the state left (S >= 10,000)
        self.checkpoints = 0
        self.append_seconds = 0.0
        self.overflows = 0

    def out(self):
        """Records out in all (durable, or copied)."""
        return self.outs[-1][1] if self.outs else self.base

    def out_at(self, now_ns, records):
        """`records` in all are out at `now_ns`."""
        if records > self.out():
            self.outs.append((now_ns, records))
            self.last_ns = now_ns

    def begin(self):
        """The measured load starts: what is out so far is the warm-up's."""
        self.base = self.out()
        self.outs = []
        self.checkpoints = 0

    def settle(self):
        """Each measured record's latency: from its append (timestamp_ns) to
        the first time the reader found it out."""
        stamps = self.tail.timestamps()
        if len(stamps) < self.out():
            sys.exit("bench-collector-run: error: %s: %d records out, %d in %s"
                     % (self.name, self.out(), len(stamps), self.tail.path))
        self.latencies = []
        i = self.base
        for now_ns, records in self.outs:
            self.latencies.extend((now_ns - ts) / 1e9 for ts in stamps[i:records])
            i = records

    def records_per_s(self):
        return len(self.latencies) / max(1e-9, (self.last_ns - self.first_ns) / 1e9)


def make_tree(root, sources):
    base = os.path.join(root, "sandboxes")
    paths = []
    for i in range(sources):
        d = os.path.join(base, "sb-%05d" % i)
        os.makedirs(d)
        p = os.path.join(d, "denied.log")
        open(p, "wb").close()
        paths.append(p)
    return base, paths


def wait_for(pred, timeout, what, proc):
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline or proc.poll() is not None:
            sys.exit("bench-collector-run: error: %s" % what)
        time.sleep(0.05)


def wait_out(m, proc, ino, on_events, count, pids, t0, timeout):
    """Reads events until `count` records are out; notes when the writers end."""
    running = set(pids)
    deadline = time.monotonic() + timeout
    while m.out() - m.base < count:
        for pid in list(running):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                if os.waitstatus_to_exitcode(status) != 0:
                    sys.exit("bench-collector-run: error: a writer failed")
                running.discard(pid)
                if not running:
                    m.append_seconds = (time.time_ns() - t0) / 1e9
        if time.monotonic() > deadline or proc.poll() is not None:
            sys.exit("bench-collector-run: error: %s: %d of %d records out after %d s"
                     % (m.name, m.out() - m.base, count, timeout))
        on_events(ino.events(0.05))
    if running:
        wait_writers(running)
        m.append_seconds = (time.time_ns() - t0) / 1e9


def drive(m, proc, ino, on_events, total, paths, per_log, rate, head, tail, root, timeout,
          perf_out=None):
    """Warms up, then starts the writers and reads events until `total`
    records are out. perf_out: a `perf record -g` of the tailer meanwhile.

    Warm-up: two records per log, one round at a time, out before the
    measured load starts, so both sides are in their steady state: every log
    open and read, and the collector's two checkpoint files per log made
    (a daemon makes them once per sandbox, not per record)."""
    for round_ in range(2):
        go = os.path.join(root, "go-warm-%d" % round_)
        pids = run_writers(paths, 1, 0, head, tail, go)
        time.sleep(0.2)
        open(go, "w").close()
        wait_out(m, proc, ino, on_events, len(paths) * (round_ + 1), pids, time.time_ns(),
                 timeout)
    time.sleep(0.5)
    on_events(ino.events(0.05))
    m.begin()
    go = os.path.join(root, "go")
    pids = run_writers(paths, per_log, rate, head, tail, go)
    perf = None
    if perf_out:
        perf = subprocess.Popen(["perf", "record", "-q", "-g", "-o", perf_out, "-p",
                                 str(proc.pid)], stdout=subprocess.DEVNULL)
    time.sleep(0.2)  # every writer has its files open
    cpu0 = proc_cpu_seconds(proc.pid)
    t0 = time.time_ns()
    open(go, "w").close()
    m.first_ns = t0
    wait_out(m, proc, ino, on_events, total, pids, t0, timeout)
    m.cpu = proc_cpu_seconds(proc.pid) - cpu0
    m.rss_kib = proc_status_kib(proc.pid, "VmHWM")
    m.overflows = ino.overflows
    if perf:
        perf.send_signal(signal.SIGINT)
        perf.wait(60)
    m.settle()


def stop(proc, stderr):
    """SIGTERM to the tailer we started (by its pid), and its log closed."""
    proc.send_signal(signal.SIGTERM)
    proc.wait(60)
    stderr.close()


def run_collector(collector, root, sources, per_log, rate, head, tail, timeout, perf_out,
                  name="agt-collector run"):
    base, paths = make_tree(root, sources)
    key = os.path.join(root, "key.bin")
    with open(key, "wb") as f:
        f.write(os.urandom(32))
    os.chmod(key, 0o600)
    out = os.path.join(root, "audit.jsonl")
    state = os.path.join(root, "state")
    stderr = open(os.path.join(root, "collector.stderr"), "w+b")
    argv = [collector, "run", "--key-file", key, "--out", out, "--state-dir", state,
            "--watch", os.path.join(base, "{sandbox_id}", "denied.log"), "--syslog-socket", "none"]
    proc = subprocess.Popen(argv, stderr=stderr)
    try:
        wait_for(lambda: os.path.exists(out) and os.path.isdir(state), 60,
                 "the collector did not start", proc)
        time.sleep(1.5 + sources / 5000.0)  # every log found and opened
        stderr.seek(0)
        startup = stderr.read().decode(errors="replace").strip().splitlines()
        ino = Inotify()
        wd_out = ino.add(out, IN_MODIFY)
        ino.add(state, IN_MOVED_TO | IN_MODIFY)
        audit = Tail(out)
        m = Measure(name, audit, collector=True)

        def on_events(events):
            for wd, mask, name in events:
                if wd == wd_out or mask & IN_Q_OVERFLOW:
                    m.seen += audit.new_records()
                # The head written in place (one write of its slot), or, by
                # an older build, the head or a per-source checkpoint
                # published by a rename (or a swap, which also moves the
                # previous one to .tmp: not counted). A checkpoint write is
                # one of these: each commit writes the head once and appends
                # one journal frame (written in pieces at many sources, so
                # its IN_MODIFY events would count one frame several times);
                # an older build renamed one file per source.
                published = (mask & IN_MODIFY and name == b"chain.head") or \
                    (mask & IN_MOVED_TO and (name.endswith(b".checkpoint") or
                                             name == b"chain.head"))
                if published or mask & IN_Q_OVERFLOW:
                    m.checkpoints += 1 if published else 0
                    m.out_at(time.time_ns(), m.seen)

        drive(m, proc, ino, on_events, sources * per_log, paths, per_log, rate, head, tail, root,
              timeout, perf_out)
        ino.close()
        audit.close()
    finally:
        stop(proc, stderr)
    if sources >= 10000:
        m.restart_rss_kib = restart_peak_rss(argv, root, sources)
    return m, startup


def restart_peak_rss(argv, root, sources):
    """Peak RSS (KiB) of the collector started again on the state and the
    logs the load left: every checkpoint loaded, every log found and
    matched to it, nothing new to read."""
    stderr = open(os.path.join(root, "collector-restart.stderr"), "w+b")
    proc = subprocess.Popen(argv, stderr=stderr)
    try:
        time.sleep(2.0 + sources / 5000.0)  # as at the first start, and a second more
        if proc.poll() is not None:
            stderr.seek(0)
            sys.exit("bench-collector-run: error: the restarted collector exited: %s"
                     % stderr.read().decode(errors="replace").strip())
        return proc_status_kib(proc.pid, "VmHWM")
    finally:
        stop(proc, stderr)


RSYSLOG_CONF = """\
# Private instance for the benchmark: no other inputs, its own work dir.
global(workDirectory="{work}" maxMessageSize="64k")
module(load="imfile" mode="inotify")
template(name="line" type="string" string="%rawmsg%\\n")
ruleset(name="copy") {{
  action(type="omfile" file="{out}" template="line")
}}
input(type="imfile" file="{base}/*/denied.log" tag="agt" ruleset="copy")
"""


def rsyslog_version():
    r = subprocess.run(["rsyslogd", "-v"], capture_output=True, text=True)
    first = r.stdout.splitlines()[0] if r.stdout else "unknown"
    return " ".join(first.replace("compiled with:", "").split())


def run_rsyslog(root, sources, per_log, rate, head, tail, timeout):
    base, paths = make_tree(root, sources)
    work = os.path.join(root, "rsyslog-work")
    os.makedirs(work)
    out = os.path.join(root, "rsyslog.out")
    open(out, "wb").close()
    conf = os.path.join(root, "rsyslog.conf")
    text = RSYSLOG_CONF.format(work=work, out=out, base=base)
    with open(conf, "w") as f:
        f.write(text)
    rsyslogd = shutil.which("rsyslogd", path="/usr/sbin:/sbin:/usr/bin")
    stderr = open(os.path.join(root, "rsyslog.stderr"), "wb")
    # -n: in the foreground (our child); -i: its own pid file; -f: only this config.
    proc = subprocess.Popen([rsyslogd, "-n", "-f", conf, "-i", os.path.join(root, "rsyslog.pid")],
                            stdout=stderr, stderr=stderr)
    try:
        time.sleep(1.5 + sources / 2000.0)  # every log found and watched
        if proc.poll() is not None:
            sys.exit("bench-collector-run: error: rsyslogd exited %d (%s)"
                     % (proc.returncode, os.path.join(root, "rsyslog.stderr")))
        ino = Inotify()
        ino.add(out, IN_MODIFY)
        copy = Tail(out)
        m = Measure("rsyslogd imfile", copy)

        def on_events(events):
            if not events:
                return
            now = time.time_ns()
            m.seen += copy.new_records()
            m.out_at(now, m.seen)

        drive(m, proc, ino, on_events, sources * per_log, paths, per_log, rate, head, tail, root,
              timeout)
        ino.close()
        copy.close()
    finally:
        stop(proc, stderr)
    return m, text


def ms(seconds):
    return "%.1f" % (seconds * 1000.0)


def row(m, total):
    lat = m.latencies
    return ("  %-18s %9.0f %8s %8s %8s %9.1f %8.1f %11s %9.2f"
            % (m.name, m.records_per_s(), ms(percentile(lat, 50)), ms(percentile(lat, 99)),
               ms(max(lat)), m.cpu / total * 1e6, m.rss_kib / 1024.0,
               ("%.0f" % (m.checkpoints / max(1e-9, (m.last_ns - m.first_ns) / 1e9)))
               if m.collector else "-",
               total / max(1e-9, m.append_seconds) / 1000.0))


def median_run(runs):
    """The run with the median records/s (the upper one of an even count)."""
    return sorted(runs, key=Measure.records_per_s)[len(runs) // 2]


def section_load(shim, collector, source_counts, records, rate, timeout, perf_dir=None,
                 sides_wanted=("collector", "rsyslog"), baseline=None, rounds=1):
    """baseline: another build's agt-collector, run on the same records as
    this build's; rounds: each side this many times, the two builds taking
    turns (which goes first alternates), so a noisy machine slows both alike."""
    print("load (after a warm-up of 2 records per log, writers append shim records to every "
          "log in rounds, %s;\n      %d records in all per S, at least 1 per log; "
          "%d writer processes; %d round(s) per side)"
          % ("paced at %d records/s" % rate if rate else "as fast as they can",
             records, WRITERS, rounds))
    print("  collector: %s run (version below); rsyslog: %s"
          % (collector, rsyslog_version()))
    if baseline:
        print("  baseline:  %s run" % baseline)
    print("  %-18s %9s %8s %8s %8s %9s %8s %11s %9s"
          % ("S / side", "records/s", "p50 ms", "p99 ms", "max ms", "cpu us/r", "RSS MiB",
             "ckpt wr/s", "append k/s"))
    conf_text, startup = None, None
    results = []
    for sources in source_counts:
        per_log = max(1, records // sources)
        total = per_log * sources
        sides, failed = {}, {}
        for round_ in range(rounds):
            builds = ["baseline", "collector"] if baseline else ["collector"]
            if round_ % 2:
                builds.reverse()
            for side in ["rsyslog"] + builds:
                if side not in sides_wanted and not (side == "baseline" and
                                                     "collector" in sides_wanted):
                    continue
                root = tempfile.mkdtemp(prefix="agt-bench-load-")
                try:
                    head, tail = shim_record(shim, root)
                    if side == "rsyslog":
                        try:
                            m, conf_text = run_rsyslog(root, sources, per_log, rate, head, tail,
                                                       timeout)
                        except SystemExit as e:  # rsyslog did not keep up: said, the other runs
                            failed[side] = str(e)
                            continue
                    else:
                        suffix = "-baseline" if side == "baseline" else ""
                        perf_out = (os.path.join(perf_dir, "collector-S%d%s-r%d.perf"
                                                 % (sources, suffix, round_))
                                    if perf_dir else None)
                        m, started = run_collector(
                            baseline if side == "baseline" else collector, root, sources,
                            per_log, rate, head, tail, timeout, perf_out,
                            "baseline run" if side == "baseline" else "agt-collector run")
                        if side == "collector":
                            startup = started
                    sides.setdefault(side, []).append(m)
                finally:
                    remove_bench_dir(root)
        print("  S=%-5d (%d records, %d per log)" % (sources, total, per_log))
        for side in sorted(sides):
            for m in sides[side]:
                print(row(m, total))
        for side in sorted(sides):
            for m in sides[side]:
                if m.restart_rss_kib:
                    print("  %-18s peak RSS %.1f MiB at a restart on the state it left"
                          % (m.name, m.restart_rss_kib / 1024.0))
        for side, why in failed.items():
            print("  %-18s %s" % (side, why))
        if "baseline" in sides and "collector" in sides:
            # Each round's pair, then all rounds together (records over time, cpu over records).
            pairs = list(zip(sides["collector"], sides["baseline"]))
            each = ", ".join("%.2fx/%.2fx" % (c.records_per_s() / b.records_per_s(),
                                               c.cpu / max(1e-9, b.cpu)) for c, b in pairs)

            def over_all(runs):
                seconds = sum((m.last_ns - m.first_ns) / 1e9 for m in runs)
                return (sum(len(m.latencies) for m in runs) / max(1e-9, seconds),
                        sum(m.cpu for m in runs) / (total * len(runs)))
            c_rate, c_cpu = over_all(sides["collector"])
            b_rate, b_cpu = over_all(sides["baseline"])
            print("    ratio this build/baseline: records/s %.2fx, cpu/record %.2fx "
                  "(%.1f against %.1f us; each round records/s / cpu: %s)"
                  % (c_rate / b_rate, c_cpu / b_cpu, c_cpu * 1e6, b_cpu * 1e6, each))
        if "collector" not in sides or "rsyslog" not in sides:
            if "collector" in sides and sources == 10000:
                results.append((sources, median_run(sides["collector"]), None))
            continue
        c, r = median_run(sides["collector"]), median_run(sides["rsyslog"])
        ratio = c.records_per_s() / r.records_per_s()
        print("    ratio collector/rsyslog%s: records/s %.2fx, p99 %.2fx, cpu/record %.2fx%s"
              % (" (median runs)" if rounds > 1 else "",
                 ratio, percentile(c.latencies, 99) / max(1e-9, percentile(r.latencies, 99)),
                 c.cpu / max(1e-9, r.cpu),
                 "" if not (c.overflows or r.overflows) else
                 "  (reader's inotify queue overflowed %d/%d times)" % (c.overflows, r.overflows)))
        results.append((sources, c, r))
    print("  goals: >= 1.00x rsyslog records/s at S=1000 with p99 <= 50 ms; "
          "RSS <= 32 MB at S=10000")
    for sources, c, r in results:
        if sources == 1000 and r is not None:
            p99 = percentile(c.latencies, 99) * 1000
            print("    S=1000: %.2fx (%s), p99 %.1f ms (%s)"
                  % (c.records_per_s() / r.records_per_s(),
                     "met" if c.records_per_s() >= r.records_per_s() else "NOT met",
                     p99, "met" if p99 <= 50 else "NOT met"))
        if sources == 10000:
            limit_kib = 32 * 1000 * 1000 / 1024
            print("    S=10000: peak RSS %.1f MiB under load (%s), %.1f MiB at a restart on its "
                  "state (%s)"
                  % (c.rss_kib / 1024.0, "met" if c.rss_kib <= limit_kib else "NOT met",
                     c.restart_rss_kib / 1024.0,
                     "met" if c.restart_rss_kib <= limit_kib else "NOT met"))
    if startup:
        print("  collector's start line: %s" % next((l for l in startup if "pattern" in l),
                                                     startup[-1]))
    print("  rsyslog config (one per run; paths are that run's):")
    for line in (conf_text or "").splitlines():
        print("    | " + line)
