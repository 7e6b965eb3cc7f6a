"""agt-deny-shim's delivery over the collector's socket (AGT_DENIED_SOCKET).

The real static shim, exec'd through symlinks, against a Python peer on a real
AF_UNIX SOCK_SEQPACKET socket (tests/socket_peer.py) that answers ACK, NAK,
nothing, or closes; and against no socket and a path that is not one. The
built-in default is exercised as the default-log tests do: in a private mount
namespace with a tmpfs over the default's grandparent (needs root: fails
without it).
"""
import os
import re
import socket
import subprocess
import time

from build_paths import BUILD, HERE, TOP
from shim_support import SOCKET_WARNING_PREFIX, ShimTestCase, run, strict_json
from socket_peer import SeqpacketPeer
from strace_support import strace_argv

# The bound the man page states; the test only checks that a denial that
# waits for it still ends (never a speed assertion).
BOUND_MS = 200


def default_socket_path():
    with open(os.path.join(BUILD, "shim", "destinations.h")) as f:
        m = re.search(r'kDefaultDeniedSocket\[\] = "([^"]*)";', f.read())
    return m.group(1)


class SocketDelivery(ShimTestCase):

    def deny(self, sock, log=None, name="curl", args=("https://example.com/x",), **kwargs):
        log = log or self.sandbox.join("denied.log")
        started = time.monotonic()
        d = run([name] + list(args), executable=self.sandbox.link(name),
                env={"AGT_DENIED_SOCKET": sock, "AGT_DENIED_LOG": log}, timeout=20, **kwargs)
        d.seconds = time.monotonic() - started
        self.assertLess(d.seconds, 10, "the denial must never hang")
        self.assertValidDenial(d, name)
        return d

    def peer(self, answer):
        p = SeqpacketPeer(self.sandbox.join("denied.sock"), answer)
        self.addCleanup(p.close)
        return p

    def read(self, path):
        with open(path, "rb") as f:
            return f.read()

    def assertFellBack(self, d, reason):
        """Not delivered: the record in the log as without a socket, and one
        warning line naming the socket and why."""
        self.assertEqual(len(d.socket_warnings), 1, d.stderr)
        self.assertIn(reason, d.socket_warnings[0])
        self.assertEqual(d.warnings, [], d.stderr)
        self.assertEqual(self.read(self.sandbox.join("denied.log")), d.record_line + b"\n")

    def test_acknowledged_the_record_is_the_message_and_the_log_is_not_written(self):
        peer = self.peer("ack")
        d = self.deny(peer.path)
        self.assertEqual(peer.messages, [d.record_line])
        self.assertFalse(os.path.lexists(self.sandbox.join("denied.log")))
        # stderr as without a socket: the record, the human line, nothing else.
        self.assertEqual(d.lines[2:], [b""], d.stderr)

    def test_the_record_says_nothing_new(self):
        # Trust comes from the kernel on the collector's side: the record's
        # keys are those of a denial without any socket.
        peer = self.peer("ack")
        delivered = self.deny(peer.path).record
        logged = self.deny(self.sandbox.join("none.sock"), log=self.sandbox.join("other.log")).record
        self.assertEqual(set(delivered), set(logged))

    def test_a_record_of_the_largest_size_is_one_message(self):
        peer = self.peer("ack")
        d = self.deny(peer.path, args=["--data", "y" * 5000] + ["z" * 300] * 20)
        self.assertTrue(d.record["truncated"])
        self.assertEqual(peer.messages, [d.record_line])
        self.assertGreater(len(d.record_line), 3000)

    def test_a_nak_falls_back_to_the_log(self):
        peer = self.peer("nak")
        d = self.deny(peer.path)
        self.assertEqual(peer.messages, [d.record_line])
        self.assertFellBack(d, "the collector refused the record (NAK)")

    def test_a_close_without_an_answer_falls_back(self):
        peer = self.peer("close")
        d = self.deny(peer.path)
        self.assertFellBack(d, "the collector closed the connection without an answer")

    def test_no_answer_falls_back_after_the_bound_and_still_exits_126(self):
        peer = self.peer("silent")
        d = self.deny(peer.path)
        self.assertEqual(peer.messages, [d.record_line])
        self.assertFellBack(d, "acknowledgement: no answer within %d ms" % BOUND_MS)
        # It did wait (an earlier end would mean no wait at all); how much
        # longer is the benchmark's business, not this test's.
        self.assertGreaterEqual(d.seconds, BOUND_MS / 1000 * 0.95)

    def test_no_socket_falls_back(self):
        d = self.deny(self.sandbox.join("absent.sock"))
        self.assertFellBack(d, 'absent.sock": connect: No such file or directory')

    def test_a_path_that_is_not_a_socket_falls_back_and_is_left_alone(self):
        plain = self.sandbox.join("plain")
        with open(plain, "wb") as f:
            f.write(b"keep")
        d = self.deny(plain)
        self.assertFellBack(d, "connect: Connection refused")
        self.assertEqual(self.read(plain), b"keep")

    def test_a_stream_socket_falls_back(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.addCleanup(s.close)
        s.bind(self.sandbox.join("stream.sock"))
        s.listen(4)
        d = self.deny(self.sandbox.join("stream.sock"))
        self.assertFellBack(d, "connect: Protocol wrong type for socket")

    def test_the_warning_names_the_socket_escaped_and_redacted(self):
        d = self.deny(self.sandbox.join("https://u:hunter22@h/\x1b.sock"))
        w = d.socket_warnings[0]
        self.assertTrue(w.startswith(SOCKET_WARNING_PREFIX + '"'), w)
        self.assertNotIn("hunter22", w)
        self.assertIn("\\u001b", w)

    def test_with_fd_2_closed_the_socket_may_be_fd_2_and_the_record_still_arrives(self):
        peer = self.peer("ack")
        link = self.sandbox.link("wget")
        proc = subprocess.run(["sh", "-c", 'exec "$0" x 2>&-', link],
                              env={"AGT_DENIED_SOCKET": peer.path, "AGT_DENIED_LOG": self.sandbox.join("denied.log"),
                                   "PATH": "/usr/bin:/bin"}, capture_output=True, timeout=20)
        self.assertEqual(proc.returncode, 126)
        self.assertEqual(len(peer.messages), 1)
        self.assertEqual(strict_json(peer.messages[0])["binary"], "wget")
        self.assertFalse(os.path.lexists(self.sandbox.join("denied.log")))

    def test_the_socket_call_is_exactly_the_allowed_one(self):
        peer = self.peer("ack")
        trace = self.sandbox.join("trace")
        proc = subprocess.run(strace_argv(trace, "trace=socket,connect,setsockopt", follow=False) + [
                               self.sandbox.link("curl"), "x"],
                              env={"AGT_DENIED_SOCKET": peer.path, "AGT_DENIED_LOG": self.sandbox.join("l")},
                              capture_output=True, timeout=60)
        self.assertEqual(proc.returncode, 126, proc.stderr)
        with open(trace) as f:
            calls = f.read().splitlines()
        self.assertEqual([c for c in calls if c.startswith("socket(")],
                         ["socket(AF_UNIX, SOCK_SEQPACKET|SOCK_CLOEXEC, 0) = 3"])
        self.assertTrue(any(c.startswith("connect(3, {sa_family=AF_UNIX, sun_path=\"%s\"}" % peer.path)
                            for c in calls), calls)
        self.assertEqual(len(peer.messages), 1)

    def test_connected_before_the_filter_the_record_sent_after_it(self):
        # Nine system calls, as one exchange had: the clock is read once to
        # start the bound, connect's send timeout also covers the write, and
        # the answer's timeout is what is left. The socket is made and
        # connected first, before the filter (so the collector checks the
        # sender while it confines itself and builds its record); the record
        # goes after the filter, once argv has been read.
        peer = self.peer("ack")
        trace = self.sandbox.join("trace")
        proc = subprocess.run(strace_argv(trace, follow=False) + [self.sandbox.link("curl"), "x"],
                              env={"AGT_DENIED_SOCKET": peer.path, "AGT_DENIED_LOG": self.sandbox.join("l")},
                              capture_output=True, timeout=60)
        self.assertEqual(proc.returncode, 126, proc.stderr)
        self.assertEqual(len(peer.messages), 1)
        with open(trace) as f:
            calls = f.read().splitlines()
        names = [m.group(1) if m else "" for m in (re.match(r"^(\w+)\(", c) for c in calls)]
        first = names.index("socket")
        connected = calls[first:first + 4]
        self.assertEqual(names[first:first + 4], ["socket", "clock_gettime", "setsockopt", "connect"], calls)
        self.assertIn("SO_SNDTIMEO", connected[2])
        # Nothing but the signal dispositions before it.
        self.assertEqual([n for n in names[:first] if n not in ("execve", "arch_prctl", "set_tid_address")],
                         ["rt_sigaction", "rt_sigaction"], calls)
        filt = next(i for i, c in enumerate(calls) if c.startswith("prctl(PR_SET_SECCOMP"))
        self.assertLess(first + 3, filt)
        sent = names.index("write", filt)
        exchange = calls[sent:sent + 5]
        self.assertEqual(names[sent:sent + 5], ["write", "clock_gettime", "setsockopt", "recvfrom", "close"],
                         calls)
        self.assertTrue(exchange[0].startswith("write(3, "), exchange)
        self.assertIn("SO_RCVTIMEO", exchange[2])
        self.assertTrue(exchange[4].startswith("close(3)"), exchange)

    def test_many_denials_each_acknowledged_once(self):
        peer = self.peer("ack")
        records = [self.deny(peer.path, args=["n%d" % i]).record_line for i in range(20)]
        self.assertEqual(peer.messages, records)
        self.assertFalse(os.path.lexists(self.sandbox.join("denied.log")))

    def test_the_man_page_states_the_socket_default_and_bound(self):
        with open(os.path.join(TOP, "man", "agt-deny-shim.1")) as f:
            page = f.read()
        self.assertIn("AGT_DENIED_SOCKET", page)
        self.assertIn(default_socket_path(), page)
        self.assertIn("200 ms", page)


class DefaultSocket(ShimTestCase):
    """AGT_DENIED_SOCKET unset or empty: the built-in default is tried, so
    dropping the variable cannot skip the socket."""

    def in_namespace(self, env_args, answer="ack", with_peer=True, trace=None):
        """Runs `env -i ENV... curl x` in a private mount namespace with a
        tmpfs over the default socket's grandparent, a peer listening at the
        default when `with_peer`, under strace writing to `trace` when given;
        returns (rc, stderr, messages the peer read, the log's content)."""
        default = default_socket_path()
        self.assertTrue(default.startswith("/"), default)
        directory = os.path.dirname(default)
        top = os.path.dirname(directory)
        self.assertTrue(os.path.isdir(top), "the default's parent %s must exist on the host" % top)
        scratch = self.sandbox.join("out")
        log = self.sandbox.join("denied.log")
        script = ('mount -t tmpfs agt-test "$TOP" && mkdir -p "$DIR" && '
                  'if [ "$PEER" = 1 ]; then "$PY" "$HERE/socket_peer.py" "$DEFAULT" "$ANSWER" "$OUT.msgs" '
                  '"$OUT.ready" & i=0; while [ ! -e "$OUT.ready" ] && [ $i -lt 200 ]; do sleep 0.05; '
                  'i=$((i+1)); done; fi; '
                  'env -i "$@" 2>"$OUT.err"; echo "$?" > "$OUT.rc"; [ "$PEER" = 1 ] && kill $! ; true')
        env = {"PATH": "/usr/bin:/bin", "TOP": top, "DIR": directory, "DEFAULT": default, "OUT": scratch,
               "PY": "/usr/bin/python3", "HERE": HERE, "ANSWER": answer, "PEER": "1" if with_peer else "0"}
        proc = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh"] +
                              env_args + ["AGT_DENIED_LOG=" + log] +
                              (["/usr/bin/strace", "-qq", "-o", trace] if trace else []) +
                              [self.sandbox.link("curl"), "x"],
                              env=env, capture_output=True, timeout=60)
        self.assertEqual(proc.stderr, b"", "unshare/mount failed (root needed)")
        with open(scratch + ".rc") as f:
            rc = int(f.read())
        with open(scratch + ".err", "rb") as f:
            err = f.read()
        messages = []
        if os.path.exists(scratch + ".msgs"):
            with open(scratch + ".msgs") as f:
                messages = [bytes.fromhex(l) for l in f.read().split()]
        logged = b""
        if os.path.exists(log):
            with open(log, "rb") as f:
                logged = f.read()
        return rc, err, messages, logged

    def test_unset_the_default_socket_is_used(self):
        rc, err, messages, logged = self.in_namespace([])
        self.assertEqual(rc, 126)
        self.assertEqual(messages, [err.split(b"\n")[0]])
        self.assertEqual(logged, b"")
        self.assertNotIn(b"warning", err)

    def test_an_empty_value_does_not_skip_the_default(self):
        rc, err, messages, logged = self.in_namespace(["AGT_DENIED_SOCKET="])
        self.assertEqual(rc, 126)
        self.assertEqual(messages, [err.split(b"\n")[0]])
        self.assertEqual(logged, b"")

    def test_no_collector_at_the_default_no_socket_is_made(self):
        # The default is looked up once before the filter; found absent, the
        # denial makes no socket for connect() to fail on, and says what
        # connect() would have said.
        trace = self.sandbox.join("trace")
        rc, err, messages, logged = self.in_namespace([], with_peer=False, trace=trace)
        self.assertEqual(rc, 126)
        self.assertEqual(logged, err.split(b"\n")[0] + b"\n")
        self.assertIn(('%s"%s": connect: No such file or directory' % (SOCKET_WARNING_PREFIX, default_socket_path()))
                      .encode(), err)
        with open(trace) as f:
            calls = f.read().splitlines()
        self.assertEqual([c for c in calls if c.startswith(("socket(", "connect("))], [], calls)
        looked = [i for i, c in enumerate(calls) if c.startswith('access("%s", F_OK)' % default_socket_path())]
        filt = [i for i, c in enumerate(calls) if c.startswith("prctl(PR_SET_SECCOMP")]
        self.assertEqual(len(looked), 1, calls)
        self.assertLess(looked[0], filt[0])

    def test_no_collector_at_the_default_the_log_and_a_warning_naming_it(self):
        rc, err, messages, logged = self.in_namespace([], with_peer=False)
        self.assertEqual(rc, 126)
        self.assertEqual(messages, [])
        self.assertEqual(logged, err.split(b"\n")[0] + b"\n")
        self.assertIn(('%s"%s": connect: No such file or directory' % (SOCKET_WARNING_PREFIX, default_socket_path()))
                      .encode(), err)
