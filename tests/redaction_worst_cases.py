"""Crafted worst cases for the redaction rules, shared by
tests/test_shim_redaction_time.py and scripts/bench-redaction.

Each is one repeated unit aimed at a rule's scan (repeated prefixes, long
runs of separators and quotes), cut to the longest argument the kernel
passes (MAX_ARG_STRLEN, 128 KiB including the NUL); a (head, unit) pair
starts with its head once (a command whose one argument the unit fills).
"""
import os
import resource
import subprocess

MAX_ARG = 128 * 1024 - 1

# rule -> repeated unit, or (head, repeated unit)
WORST_UNITS = {
    "token shapes (sk- prefixes)": "sk-",
    "token shapes (AKIA prefixes)": "AKIA",
    "token shapes (SendGrid-like dots)": "SG.",
    "token shapes (Slack dashes)": "xoxb-",
    "JSON Web Tokens": "eyJ-",
    "JSON Web Tokens (dots)": "eyJaaaaaaaaaa.",
    "PEM blocks": "-----BEGIN ",
    "PEM private key without END": "-----BEGIN PRIVATE KEY-----",
    "URL userinfo": "://",
    "URL userinfo with '@'": "a://a@",
    "capability paths": "https://hooks.x/a/",
    "bot token hosts, nested": "x://api.telegram.org/bot1:",
    "webhook segments": "/webhooks",
    "userinfo without a scheme": "x@a:",
    "userinfo separators": "a:=",
    "userinfo in angle brackets": "a:<b@c ",
    "assignments": "a=",
    "assignments with secret-ish names": "pas=",
    "assignment separators": "=A:",
    "query tokens": "&token=",
    "assignments: quoted values": " token='",
    "assignments: escapes in quoted values": " token=\"\\",
    "assignments: unclosed quoted values": " token=\"",
    "headers after '='": "=Authorization:",
    "headers after newlines": "\nCookie:",
    "authorization schemes": "Bearer ",
    "quoted members": "\"'",
    "code assignments": "token = '",
    "code assignments, other names": "pas = '",
    "code assignments, subscripts": "x'] = '",
    "code calls": "login('', ",
    "code calls, unclosed strings": "login(a, '",
    "code groups of secret names": "auth=(",
    "code nesting": "a(",
    "code argv lists": "['curl', '-u', 'a:b'], ",
    "code argv lists, one element each": "['a'],",
    "code names, then values": "f('token', ",
    "prompt answers": "expect 'token' send '",
    "prompt patterns": "'token' {",
    "prompt quotes": "\"'",
    "substitutions": "s/",
    "substitutions, every delimiter": "s/s|s#s,s:s@s!s%",
    "substitution replacements": "s/a/token=",
    "SQL passwords: FOR without '='": "password for ",
    "SQL passwords: quoted plugins": "identified with `identified with '",
    "SQL passwords: '=' without a string": "Password = ",
    "SQL: PRAGMA without a key": "pragma main.pragma ",
    "SQL: INSERT tuples": "insert into t (password) values ('x', ",
    "SQL: INSERT column lists": "insert into t (a, ",
    "code: type annotations": "apiKey: Record<string, string> | undefined ",
    "code: string prefixes": "token = f",
    "CI mask commands": "::add-mask::",
    "protocol passwords": "\nAUTH x",
    "protocol passwords: IMAP logins": "\na1 LOGIN ",
    "protocol passwords: IMAP logins, quoted": "\na1 LOGIN \"",
    "protocol passwords: SMTP's AUTH LOGIN": "\nAUTH LOGIN",
    "code in escaped strings": "\"f(\\\"",
    "CI set commands": "::set-output name=token::",
    "CI set variables": "##vso[task.setvariable variable=token]",
    "values in open brackets": "[password=",
    "parameter defaults": "${TOKEN:-",
    "parameter defaults, closed": "${TOKEN:-x}",
    "options in one argument": " --password x",
    "options in one argument, no value": " --password -",
    "query string names": "?key=&code=",
    "quoted secret members": "\"password\":",
    "escaped quoted members": "\\\"password\\\":",
    "escaped quoted values": "\\\"token\\\":\\\"\\\\",
    "name word splits": "a.b.c_",
    "camelCase splits": "aBcD",
    "short option clusters": "-u",
    "command lines: words": "a ",
    "command lines: separators": "a;",
    "command lines: quoted command lines": "'a b' ",
    "command lines: quoted names": "('a b')",
    "command lines: prefixes": "sudo ",
    "command lines: prefix lookups": "sudo curk ",
    "command lines: quoted headers": "-H'Cookie: ",
    "command lines: tool options": "curl -u a:b ",
    "command lines: pipelines": "echo a|docker --password-stdin|",
    "command lines: redirections": "echo a >token;",
    "command lines: here-strings": "<<< ",
    "command lines: here-documents": "a <<E\n",
    "command lines: here-documents fed a secret": "passwd <<E\nE\n",
    "command lines: assignment values": "a=curk ",
    "command lines: quoted assignment values": "a='b c' ",
    "command lines: nested assignment values": "a='b=\"c d\" e' ",
    "command lines: sed's text": "sed '1a token: x' ",
    "command lines: redirections after secret options": "a --password < f;",
    "command lines: escaped names": "\\curl -u a:b ",
    "command lines: printf's conversions after quotes": ("printf '", "'%s"),
    "command lines: printf's conversions after SQL's words": ("printf '", "x x x x x x=%s by "),
    "command lines: printf's conversions after Db2's USING": ("printf '", "user u using %s "),
    "command lines: printf's quoted conversions": ("printf '", 'token=\\"\\"\\"%s\\"\\"\\" '),
    "SQL: Db2's CONNECT TO": "connect to d user ",
    "flow mappings: pairs": ("{", "token: a, "),
    "flow mappings: names": "{a:{",
    "code: strings piped into filters": "'a' |    crypt('b', ",
    "code: filters after blanks": "crypt  |        crypt(",
    "SQL: escaped single quotes after PASSWORD": "PASSWORD \\'",
    "command strings: escaped quotes": ("sh -c \"", "a \\\"b "),
    "command strings: headers ending with their word": ("sh -c \"", "=Authorization: x "),
    "command strings: escaped backslashes": ("sh -c \"", "\\\\\\\" "),
    "command strings: quoted JSON values": ("sh -c ", "a='{\"b\": \"c d\"}' "),
    "prompts: escaped": "expect \\\"password:\\\"; send \\\"",
    "code: quoted labels": " \"password:\"",
    "command strings: joined single quotes": ("sh -c ", "'a '\\''b' "),
    "command strings: inside joined single quotes": ("sh -c 'x '\\''", "a '\\''\"'\"'b \" "),
}


def worst_argument(unit):
    head, unit = unit if isinstance(unit, tuple) else ("", unit)
    return (head + unit * (MAX_ARG // len(unit) + 1))[:MAX_ARG]


def run_measured(argv, env):
    """Runs argv; returns (exit status, stderr, user+system CPU ms it used)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60)
    code, err = proc.returncode, proc.stderr
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    used = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000.0
    return code, err, used


def best_of(n, argv, env):
    best = None
    for _ in range(n):
        code, err, used = run_measured(argv, env)
        if best is None or used < best[2]:
            best = (code, err, used)
    return best


def link_dir(shim):
    import tempfile
    d = tempfile.mkdtemp(prefix="agt-redaction-time-")
    link = os.path.join(d, "curl")
    os.symlink(shim, link)
    return d, link
