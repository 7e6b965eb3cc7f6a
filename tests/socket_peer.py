"""A test peer on a real AF_UNIX SOCK_SEQPACKET socket that plays the
collector's side of the denial socket: per connection it reads one message
and answers ACK (0x06), NAK (0x15), nothing (holds the connection until it is
closed by the shim), or closes at once. It is NOT the collector: it checks
nothing and writes nothing durable; it only lets the shim's side of the
protocol be exercised for every answer.

Used in-process (SeqpacketPeer) or as a program, for a peer inside another
mount namespace:

    python3 socket_peer.py PATH ANSWER MESSAGES_FILE READY_FILE

which appends each message it reads (hex, one a line) to MESSAGES_FILE and
touches READY_FILE once it listens; it serves until killed.
"""
import socket
import sys
import threading

ACK = b"\x06"
NAK = b"\x15"
ANSWERS = ("ack", "nak", "silent", "close")


def _answer(conn, answer):
    if answer == "ack":
        conn.send(ACK)
    elif answer == "nak":
        conn.send(NAK)
    elif answer == "silent":
        # Held open, unanswered, until the shim gives up and closes its end.
        conn.settimeout(5)
        try:
            conn.recv(1)
        except OSError:
            pass


def listen(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.bind(path)
    s.listen(64)
    return s


class SeqpacketPeer:
    """Serves `path` in a thread; .messages holds every message read."""

    def __init__(self, path, answer="ack"):
        assert answer in ANSWERS, answer
        self.path = path
        self.answer = answer
        self.messages = []
        self.connections = 0
        self._sock = listen(path)
        self._stop = False
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self):
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            if self._stop:
                conn.close()
                return
            with conn:
                self.connections += 1
                conn.settimeout(5)
                try:
                    self.messages.append(conn.recv(65536))
                    _answer(conn, self.answer)
                except OSError:
                    pass

    def close(self):
        self._stop = True
        # Wake accept() with a connection of our own, then close.
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as w:
                w.connect(self.path)
        except OSError:
            pass
        self._thread.join(10)
        self._sock.close()


def main(argv):
    path, answer, messages_file, ready_file = argv[1:5]
    assert answer in ANSWERS, answer
    s = listen(path)
    open(ready_file, "w").close()
    while True:
        conn, _ = s.accept()
        with conn:
            message = conn.recv(65536)
            with open(messages_file, "a") as f:
                f.write(message.hex() + "\n")
            _answer(conn, answer)


if __name__ == "__main__":
    main(sys.argv)
