"""Upstream AGT's audit chain logic, re-implemented with the standard library.

Follows the SignedAuditEntry / FileAuditSink / HashChainVerifier behaviour the
project's SPEC describes (agentmesh governance, audit_backends.py):

- content_hash = sha256(json.dumps(payload, sort_keys=True)) where payload is
  the entry's entry_id, timestamp, event_type, agent_did, action, resource,
  target_did, data, outcome, policy_decision, matched_rule, trace_id,
  session_id and previous_hash;
- previous_hash = the previous entry's content_hash ("" for the first);
- signature = hmac-sha256(key, content_hash) hex;
- a line = json.dumps(whole entry, sort_keys=True).

`write_chain` plays FileAuditSink (and must reproduce vectors/expected.jsonl),
`verify_lines` plays HashChainVerifier. Used by the end-to-end tests to check
agt-collector's output independently of its C++ code.
"""
import hashlib
import hmac
import json

PAYLOAD_FIELDS = (
    "entry_id", "timestamp", "event_type", "agent_did", "action", "resource",
    "target_did", "data", "outcome", "policy_decision", "matched_rule",
    "trace_id", "session_id", "previous_hash",
)
ENTRY_FIELDS = PAYLOAD_FIELDS[:-1] + (
    "sandbox_id", "environment", "compute_driver", "content_hash",
    "previous_hash", "signature",
)


def content_hash(entry):
    payload = {name: entry[name] for name in PAYLOAD_FIELDS}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def sign(key, digest):
    return hmac.new(key, digest.encode(), hashlib.sha256).hexdigest()


def write_chain(entries, key, previous_hash=""):
    """Returns the lines (without newline) FileAuditSink writes for `entries`."""
    lines = []
    for fields in entries:
        entry = dict(fields)
        entry["previous_hash"] = previous_hash
        entry["content_hash"] = content_hash(entry)
        entry["signature"] = sign(key, entry["content_hash"])
        lines.append(json.dumps(entry, sort_keys=True))
        previous_hash = entry["content_hash"]
    return lines


def verify_lines(lines, key):
    """(True, count) when the chain verifies, else (False, 1-based line, reason)."""
    entries = []
    for number, line in enumerate(lines, 1):
        try:
            entries.append(json.loads(line))
        except ValueError as e:
            return False, number, "not JSON: %s" % e
    return verify_entries(entries, key)


def verify_entries(entries, key):
    """verify_lines for lines already decoded (a caller that holds them saves
    decoding a large file twice)."""
    previous_hash = ""
    for number, entry in enumerate(entries, 1):
        if not isinstance(entry, dict) or set(entry) != set(ENTRY_FIELDS):
            return False, number, "not a SignedAuditEntry"
        if content_hash(entry) != entry["content_hash"]:
            return False, number, "content_hash mismatch"
        if entry["previous_hash"] != previous_hash:
            return False, number, "previous_hash does not link"
        if not hmac.compare_digest(sign(key, entry["content_hash"]), entry["signature"]):
            return False, number, "bad signature"
        previous_hash = entry["content_hash"]
    return True, len(entries), ""


def verify_file(path, key):
    with open(path, "rb") as f:
        data = f.read()
    if data and not data.endswith(b"\n"):
        return False, data.count(b"\n") + 1, "incomplete last line"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:  # upstream reads the file as UTF-8 text
        return False, data.count(b"\n", 0, e.start) + 1, "not UTF-8: %s" % e
    return verify_lines(text.splitlines(), key)
