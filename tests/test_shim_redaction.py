"""agt-deny-shim issue point 6: secrets never reach stderr or the log.

One test per documented rule (man page, REDACTION), through the static binary.
"""
from shim_support import SHIM, ShimTestCase, run


class Redaction(ShimTestCase):

    def deny(self, name, args, secrets, expected_argv, redactions):
        log = self.sandbox.join("denied.log")
        d = run([name] + args, executable=self.sandbox.link(name), env={"AGT_DENIED_LOG": log})
        rec = self.assertValidDenial(d, name)
        with open(log, "rb") as f:
            logged = f.read()
        for secret in secrets:
            self.assertNotIn(secret.encode(), d.stderr)
            self.assertNotIn(secret.encode(), logged)
        self.assertEqual(rec["argv"], expected_argv)
        self.assertEqual(rec["redactions"], redactions)
        return rec

    def test_rule1_credential_headers(self):
        self.deny("curl", ["-H", "Authorization: Bearer s3cr3tvalue", "-HCookie: sid=abc123",
                           "--header=X-Api-Key: k-987", "-H", "Accept: */*"],
                  ["s3cr3tvalue", "abc123", "k-987"],
                  ["-H", "Authorization: [REDACTED]", "-HCookie: [REDACTED]",
                   "--header=X-Api-Key: [REDACTED]", "-H", "Accept: */*"], 3)

    def test_rule2_user_password(self):
        self.deny("curl", ["-u", "alice:pa55", "-ubob:pw2", "--user=carol:pw3", "--proxy-user", "d:pw4"],
                  ["pa55", "pw2", "pw3", "pw4"],
                  ["-u", "alice:[REDACTED]", "-ubob:[REDACTED]", "--user=carol:[REDACTED]",
                   "--proxy-user", "d:[REDACTED]"], 4)

    def test_rule3_secret_options_both_forms(self):
        self.deny("az", ["login", "--password", "hunter2", "--client-secret=cs-55", "--token", "tk-1",
                         "--password-stdin", "visible"],
                  ["hunter2", "cs-55", "tk-1"],
                  ["login", "--password", "[REDACTED]", "--client-secret=[REDACTED]", "--token",
                   "[REDACTED]", "--password-stdin", "visible"], 3)

    def test_rule4_url_userinfo(self):
        self.deny("git", ["clone", "https://user:ghsecret@github.com/o/r.git"], ["ghsecret"],
                  ["clone", "https://user:[REDACTED]@github.com/o/r.git"], 1)

    def test_rule5_credential_assignments(self):
        self.deny("docker", ["run", "-e", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI", "img",
                             "https://h/x?access_token=qq77&y=1", "PATH=/bin"],
                  ["wJalrXUtnFEMI", "qq77"],
                  ["run", "-e", "AWS_SECRET_ACCESS_KEY=[REDACTED]", "img",
                   "https://h/x?access_token=[REDACTED]&y=1", "PATH=/bin"], 2)

    def test_rule5_after_equals_and_commas(self):
        self.deny("terraform", ["apply", "-var=db_password=tfpw99", "--set=a=1,api.token=settok,b=2"],
                  ["tfpw99", "settok"],
                  ["apply", "-var=db_password=[REDACTED]", "--set=a=1,api.token=[REDACTED],b=2"], 2)

    def test_rule8_login_password_short_option(self):
        self.deny("docker", ["login", "-u", "me", "-p", "dockerpw77", "registry.example"], ["dockerpw77"],
                  ["login", "-u", "me", "-p", "[REDACTED]", "registry.example"], 1)
        self.deny("az", ["login", "-u", "me@example.com", "-pazpw77"], ["azpw77"],
                  ["login", "-u", "me@example.com", "-p[REDACTED]"], 1)
        self.deny("docker", ["run", "-p", "8080:80", "img"], [],
                  ["run", "-p", "8080:80", "img"], 0)

    def test_rule2_bundled_short_options(self):
        d = run(["curl", "-su", "me:bundled1", "-sSLu:bundled2", "-sHAuthorization: Bearer bundled3x",
                 "https://x"], executable=self.sandbox.link("curl"))
        rec = self.assertValidDenial(d, "curl")
        self.assertEqual(rec["argv"], ["-su", "me:[REDACTED]", "-sSLu:[REDACTED]",
                                       "-sHAuthorization: [REDACTED]", "https://x"])
        self.assertNotIn(b"bundled", d.stderr)
        self.assertEqual(rec["redactions"], 3)

    def test_rule9_config_set_secret_name(self):
        d = run(["aws", "configure", "set", "aws_secret_access_key", "wJalrXUtnFEMIsetsecret"],
                executable=self.sandbox.link("aws"))
        rec = self.assertValidDenial(d, "aws")
        self.assertEqual(rec["argv"], ["configure", "set", "aws_secret_access_key", "[REDACTED]"])
        self.assertNotIn(b"setsecret", d.stderr)
        self.assertEqual(rec["redactions"], 1)

    def test_rule10_quoted_members_in_request_bodies(self):
        d = run(["curl", "-d", '{"user":"me","password":"bodysecret1"}', "--data-raw={'token': 'bodysecret2'}",
                 "https://x"], executable=self.sandbox.link("curl"))
        rec = self.assertValidDenial(d, "curl")
        self.assertEqual(rec["argv"], ["-d", '{"user":"me","password":"[REDACTED]"}',
                                       "--data-raw={'token': '[REDACTED]'}", "https://x"])
        self.assertNotIn(b"bodysecret", d.stderr)
        self.assertEqual(rec["redactions"], 2)

    def test_rule2_client_certificate_password(self):
        self.deny("curl", ["-E", "client.pem:certpw77", "https://x"], ["certpw77"],
                  ["-E", "client.pem:[REDACTED]", "https://x"], 1)

    def test_rule6_authorization_schemes_in_text(self):
        self.deny("ssh", ["host", "curl -H 'X: Bearer abcdefgh12345'"], ["abcdefgh12345"],
                  ["host", "curl -H 'X: Bearer [REDACTED]'"], 1)

    def test_rule11_command_lines(self):
        # A shell's command string: each command by its own tool rows.
        script = ("curl -H 'Authorization: token t0k3n' x; mysql -pdbpw1 db && "
                  "sudo -u root sshpass -p sshpw2 ssh h | bash -c 'redis-cli -a redispw3 get k'")
        self.deny("sh", ["-c", script], ["t0k3n", "dbpw1", "sshpw2", "redispw3"],
                  ["-c", "curl -H 'Authorization: [REDACTED]' x; mysql -p[REDACTED] db && "
                         "sudo -u root sshpass -p [REDACTED] ssh h | bash -c 'redis-cli -a [REDACTED] get k'"],
                  4)
        # Python calling a shell; and prose, which keeps its words.
        self.deny("python3", ["-c", "import os; os.system('curl -u me:pypw4 x')"], ["pypw4"],
                  ["-c", "import os; os.system('curl -u me:[REDACTED] x')"], 1)
        self.deny("git", ["commit", "-m", "rotate the password check"], [],
                  ["commit", "-m", "rotate the password check"], 0)

    def test_rule5_quoted_values_and_a_shells_leading_assignments(self):
        # A quoted value is whole; in a shell's command string a leading
        # assignment ends with its word, so the command after it is kept.
        script = "A=1 DB_PASSWORD='pg pw1' psql -h db; GH_TOKEN=ghtok2 gh pr create"
        self.deny("sh", ["-c", script], ["pg pw1", "pw1", "ghtok2"],
                  ["-c", "A=1 DB_PASSWORD=[REDACTED] psql -h db; GH_TOKEN=[REDACTED] gh pr create"], 2)
        self.deny("ansible-playbook", ["site.yml", "--extra-vars", "env=prod db_password='an pw3'"],
                  ["an pw3", "pw3"], ["site.yml", "--extra-vars", "env=prod db_password=[REDACTED]"], 1)

    def test_positional_tokens_and_bot_tokens_in_url_paths(self):
        self.deny("vault", ["login", "-no-print", "vtok1"], ["vtok1"], ["login", "-no-print", "[REDACTED]"], 1)
        self.deny("oc", ["login", "-u", "dev", "-p", "ocpw2", "https://api:6443"], ["ocpw2"],
                  ["login", "-u", "dev", "-p", "[REDACTED]", "https://api:6443"], 1)
        self.deny("curl", ["https://api.telegram.org/bot123:AAbotTok3/sendMessage"], ["AAbotTok3"],
                  ["https://api.telegram.org/bot[REDACTED]/sendMessage"], 1)

    def test_rule12_sql_passwords(self):
        self.deny("mysql", ["-uroot", "-e", "CREATE USER 'a'@'%' IDENTIFIED BY 'sqlpw1'"], ["sqlpw1"],
                  ["-uroot", "-e", "CREATE USER 'a'@'%' IDENTIFIED BY '[REDACTED]'"], 1)
        self.deny("psql", ["-c", "ALTER ROLE r WITH PASSWORD 'sqlpw2'"], ["sqlpw2"],
                  ["-c", "ALTER ROLE r WITH PASSWORD '[REDACTED]'"], 1)

    def test_rule13_secrets_assigned_in_code(self):
        self.deny("python3", ["-c", "import os; os.environ['HF_TOKEN'] = 'codetok1'; API_KEY = \"codekey2\""],
                  ["codetok1", "codekey2"],
                  ["-c", "import os; os.environ['HF_TOKEN'] = '[REDACTED]'; API_KEY = \"[REDACTED]\""], 2)
        self.deny("node", ["-e", "new Client({ user: 'u', password: 'codepw3' })"], ["codepw3"],
                  ["-e", "new Client({ user: 'u', password: '[REDACTED]' })"], 1)

    def test_rule11_what_is_piped_into_a_command_reading_a_secret(self):
        self.deny("sh", ["-c", "echo pipedpw1 | docker login -u bob --password-stdin r.io"], ["pipedpw1"],
                  ["-c", "echo [REDACTED] | docker login -u bob --password-stdin r.io"], 1)

    def test_rule7_token_shapes(self):
        jwt = ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
               "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U")
        pem = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\n-----END PRIVATE KEY-----"
        tokens = ["AKIAIOSFODNN7EXAMPLE", "ghp_0123456789abcdefghijABCDEFGHIJ012345",
                  "xoxb-1234567890-abcdefghij", "glpat-abcdefghij0123456789", jwt, pem]
        self.deny("kubectl", tokens, ["IOSFODNN7", "0123456789abcdefghij", "abcdefghij",
                                      "dozjgNryP4J3", "MIIEvQIBADANBg"],
                  ["[REDACTED]"] * len(tokens), len(tokens))

    def test_argv0_and_path_are_redacted_too(self):
        d = run(["https://u:topsecret@h/x", "a"], executable=self.sandbox.link("wget"))
        rec = self.assertValidDenial(d, "wget")
        self.assertEqual(rec["argv0"], "https://u:[REDACTED]@h/x")
        self.assertNotIn(b"topsecret", d.stderr)
        self.assertEqual(rec["redactions"], 1)

    def test_argv0_set_to_a_command_line_is_split_by_rule_11(self):
        d = run(["curl -u bob:a0pw --password=a0pw2 https://x", "a"], executable=self.sandbox.link("curl"))
        rec = self.assertValidDenial(d, "curl")
        self.assertEqual(rec["argv0"], "curl -u bob:[REDACTED] --password=[REDACTED] https://x")
        self.assertNotIn(b"a0pw", d.stderr)
        self.assertEqual(rec["redactions"], 2)

    def test_a_token_shaped_command_name_is_never_shown(self):
        # binary and the human line are not redacted, so a name the rules find
        # a secret in is "unknown" there; argv0 and path show it redacted.
        key = "AKIAIOSFODNN7EXAMPLE"
        for argv, exe in (([key, "a"], SHIM), (["curl", "a"], self.sandbox.link(key))):
            d = run(argv, executable=exe)
            rec = self.assertValidDenial(d, "unknown")
            self.assertNotIn(key.encode(), d.stderr)
            self.assertIn("[REDACTED]", rec["argv0"] + rec["path"])

    def test_secret_in_a_dropped_argument_is_counted_not_shown(self):
        args = ["x" * 500] * 12 + ["--password", "droppedsecret"]
        log = self.sandbox.join("denied.log")
        d = run(["curl"] + args, executable=self.sandbox.link("curl"), env={"AGT_DENIED_LOG": log})
        rec = self.assertValidDenial(d, "curl")
        self.assertTrue(rec["truncated"])
        self.assertEqual(rec["redactions"], 1)
        self.assertNotIn(b"droppedsecret", d.stderr)

    def test_secret_straddling_the_cut_is_never_partly_shown(self):
        # The secret starts just before the 512-byte cut: none of it may show.
        arg = "y" * 490 + " GITHUB_TOKEN=abcdefghijklmnopqrstuvwxyz"
        d = run(["curl", arg], executable=self.sandbox.link("curl"))
        rec = self.assertValidDenial(d, "curl")
        self.assertNotIn(b"abcdefgh", d.stderr)
        self.assertEqual(rec["redactions"], 1)
