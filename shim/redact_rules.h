// The redaction rule table: every word, option, header, URL shape and token
// prefix the redactor (redact.cc) acts on is a row here, and nowhere else.
// shim/redact_table_gen renders these rows into the man page's REDACTION
// TABLE section (tests/test_shim_manpage.py checks the page matches), so the
// documentation cannot drift from the code.
#ifndef AGT_DENY_SHIM_REDACT_RULES_H_
#define AGT_DENY_SHIM_REDACT_RULES_H_

#include <cstddef>
#include <string_view>

namespace redact_rules {

// ---- Names: options, variables, headers, query parameters, JSON members.
// A name is split into words at '-', '_', '.', ':', '/' and where a lower-case
// letter is followed by an upper-case one (AccountKey -> Account Key), and
// compared case-insensitively.

// A word that makes a name secret.
inline constexpr std::string_view kSecretWords[] =
    {
        "password",    "passwd",     "passphrase", "pass",       "secret",      "secrets",
        "token",       "tokens",     "apikey",     "credential", "credentials", "auth",
        "bearer",      "cookie",     "signature",  "sig",        "otp",         "psk",
        "requirepass", "masterauth",            // Redis: CONFIG SET requirepass V, --requirepass V
        "mnemonic",    "mnemonics",             // a wallet's seed words (forge --mnemonics)
        "adminpass",   "rootpass",   "dbpass",  // samba-tool --adminpass
        "remotepass",                           // offlineimap's remotepass = V
        "sshpass",                              // sshpass -e reads SSHPASS
        "passcode",    "totp",       "hotp",    // one-time and other codes that log in
};
// A word that makes a name secret as its last word only: ADMIN_PW and --pw,
// --jwt, GITHUB_PAT (a personal access token; not PW_TEST_..., JWT_ALGORITHM),
// fastlane's --git_basic_authorization (not --authorization-mode).
// A PIN as its last word (SIM_PIN, --user-pin; not pin_memory).
inline constexpr std::string_view kSecretLastWords[] = {"pw", "jwt", "pat", "authorization", "pin"};
// A word ending like this is secret too (dbpassword, accesstoken, PGPASSWORD,
// keytool's -srcstorepass, -Psign.keypass); "pwd" only inside a longer
// name: PWD alone is the working directory.
inline constexpr std::string_view kSecretSuffixes[] = {
    "password",  "passwd",     "token", "secret",  "apikey",    "accesskey",
    "secretkey", "accountkey", "pwd",   "authkey", "storepass", "keypass",
    "proxyauth",  // mitmproxy's --proxyauth USER:PASS, --set proxyauth=USER:PASS
};
// The qualifiers of kQualifiedWords, below. "key" alone is a file (curl
// --key), an object (aws s3api --key) or a key id.
inline constexpr std::string_view kKeyQualifiers[] = {
    "api",
    "access",
    "secret",
    "account",
    "shared",
    "master",
    "subscription",
    "functions",
    "storage",
    "license",
    "admin",
    "service",
    "encryption",
    "signing",
    "app",
    "consumer",
    "ingest",
    "application",
    "hmac",         // certbot --eab-hmac-key
    "preshared",    // WireGuard's PresharedKey
    "integration",  // PagerDuty's integration_key (not routing_key: RabbitMQ's is a queue's)
    "fernet",       // Airflow's AIRFLOW__CORE__FERNET_KEY
    "jwt",          // JWT_KEY
    "session",      // Flask's and others' SESSION_KEY
    "kaggle",       // KAGGLE_KEY
    "setup",        // netbird up --setup-key
    "libsodium",    // WAL-G's WALG_LIBSODIUM_KEY
    "cf",
    "gd",  // acme.sh's CF_Key (Cloudflare's), GD_Key (GoDaddy's)
    // Model vendors' keys (--openai-key, ANTHROPIC_KEY).
    "openai",
    "anthropic",
    "gemini",
    "mistral",
    "cohere",
    "groq",
    "deepseek",
    "huggingface",
    "replicate",
    "perplexity",
    "openrouter",
    "mashape",  // X-Mashape-Key
    // Payment and mail APIs' secret keys (STRIPE_KEY, SENDGRID_KEY).
    "stripe",
    "sendgrid",
    "mailgun",
    // GitHub Packages' gpr.key in Gradle's properties (-Pgpr.key=TOKEN).
    "gpr",
    // A wallet's or a WireGuard peer's (PRIVATE_KEY=0x..., forge
    // --private-key 0x...), a TLS client's (client-key-data); an option's
    // value that is a path is shown.
    "private",
    "client",
};
// SonarQube's sonar.login is its token (-Dsonar.login=TOKEN); elsewhere a
// login is a user name.
inline constexpr std::string_view kLoginQualifiers[] = {"sonar"};
// A wallet's seed words (SEED_PHRASE, recoveryPhrase).
inline constexpr std::string_view kPhraseQualifiers[] = {"seed", "recovery", "backup"};
// A one-time password's or a wallet's seed (TOTP_SEED, MFA_SEED, WALLET_SEED);
// elsewhere a seed is a random generator's (RANDOM_SEED=42).
inline constexpr std::string_view kSeedQualifiers[] = {"totp", "hotp", "mfa", "2fa", "wallet"};
// A login's one-time or authorization code (MFA_CODE, otp_code, auth_code);
// elsewhere a code is a status's, a country's or a program's.
inline constexpr std::string_view kCodeQualifiers[] = {
    "mfa", "2fa", "otp", "totp", "auth", "authorization", "verification"};
// A password manager's unlocked session (Bitwarden's BW_SESSION, 1Password's
// OP_SESSION_account), fastlane's Apple ID cookie (FASTLANE_SESSION);
// elsewhere a session is named or counted.
inline constexpr std::string_view kSessionQualifiers[] = {"bw", "op", "fastlane"};
// A word that makes a name secret only right after one of its qualifiers
// (api key, AccountKey, sonar.login, seed phrase).
struct QualifiedWord {
  std::string_view word;
  const std::string_view* qualifiers;
  std::size_t count;
};
inline constexpr QualifiedWord kQualifiedWords[] = {
    {"key", kKeyQualifiers, sizeof kKeyQualifiers / sizeof kKeyQualifiers[0]},
    {"login", kLoginQualifiers, sizeof kLoginQualifiers / sizeof kLoginQualifiers[0]},
    {"phrase", kPhraseQualifiers, sizeof kPhraseQualifiers / sizeof kPhraseQualifiers[0]},
    {"seed", kSeedQualifiers, sizeof kSeedQualifiers / sizeof kSeedQualifiers[0]},
    {"code", kCodeQualifiers, sizeof kCodeQualifiers / sizeof kCodeQualifiers[0]},
    {"session", kSessionQualifiers, sizeof kSessionQualifiers / sizeof kSessionQualifiers[0]},
};
// The last word of a name that says the value is not the secret itself (a
// flag, a file, a name, an id, an address): password-file, token_ttl,
// client_id, SSH_AUTH_SOCK, MongoDB's authSource and authMechanism, ssh -o
// PasswordAuthentication=no. "id" right after "secret" or "root token"
// (Vault's secret_id, VAULT_DEV_ROOT_TOKEN_ID) does not count.
inline constexpr std::string_view kNonSecretLastWords[] = {
    "stdin", "file", "path", "prompt", "type", "env", "cmd", "command", "helper", "length", "id",
    "dir", "fd", "name", "url", "uri", "method", "mode", "user", "username", "sock", "socket",
    "jar", "ttl", "header", "store", "policy", "min", "max", "version", "format", "endpoint",
    "expired", "expires", "expiry", "changed", "at", "count", "required", "enabled", "flags",
    "email", "source", "mechanism", "authentication",
    // A setting about the secret: AUTH_PROVIDER=github, SECRETS_BACKEND=vault,
    // TOKEN_ISSUER=URL, AUTH_HOST=H, TOKEN_TIMEOUT=30, SECRET_BUCKET=B,
    // Postfix's smtp_sasl_password_maps = hash:F.
    "provider", "providers", "backend", "strategy", "scheme", "realm", "scope", "scopes", "issuer",
    "audience", "host", "hostname", "port", "server", "domain", "region", "bucket", "location",
    "storage", "engine", "level", "callback", "timeout", "lifetime", "duration", "interval",
    "expiration", "rotation", "limit", "prefix", "map", "maps",
    "plugin",               // --auth-plugin CLASS
    "identity",             // --tls-psk-identity ID
    "hasher", "algorithm",  // PASSWORD_HASHER=bcrypt
    "flow",                 // --auth-flow USER_PASSWORD_AUTH
    "account",              // gcloud's auth/impersonate_service_account EMAIL
    "ref",                  // flux's --secret-ref NAME, Kubernetes' secretKeyRef
    "database",             // MongoDB's auth database (Bitnami's auth.database=app)
};
// Names that hold a credential in a query string, after '?', '&' or ';'
// (?key=, Google's and Trello's API key; OpenWeatherMap's appid; a
// session's id), though elsewhere they need not (a key). And "code" there,
// OAuth's authorization code, of kMinOAuthCodeLength bytes or more
// (?code=US is a country's).
inline constexpr std::size_t kMinOAuthCodeLength = 10;
inline constexpr std::string_view kQuerySecretNames[] = {
    "key",       "appid",      "session", "sessionid", "session_id", "sid",
    "phpsessid", "jsessionid", "sessid",  "passkey"};  // a private tracker's feed: ?passkey=
// Name-value pairs: a member or assignment of one of the first names whose
// value is a secret name makes the next of the second secret
// ({"name": "DB_PASSWORD", "value": "V"}, ParameterKey=DbPassword,
// ParameterValue=V: ECS, CloudFormation, Kubernetes' env in JSON).
// Keycloak's credentials: {"type": "password", "value": V}, kcadm.sh's -s
// type=password -s value=V.
inline constexpr std::string_view kPairNames[] = {
    "name",          "key",  "parameterkey",
    "parametername", "path", "type"};  // a JSON Patch's path, then value
inline constexpr std::string_view kPairValues[] = {"value", "parametervalue"};
// The same for a tool's own options, in any case: reg add KEY /v ApiKey
// /d V; xmlstarlet ed -u //password -v V (an XPath's last step names it).
struct OptionPair {
  std::string_view tools;  // space-separated names
  std::string_view name_option;
  std::string_view value_option;
};
inline constexpr OptionPair kOptionPairs[] = {
    {"reg reg.exe", "/v", "/d"},
    {"xmlstarlet xml", "-u", "-v"},  // ed -u XPATH -v V
    {"xmlstarlet xml", "--update", "--value"},
    {"xmlstarlet xml", "-n", "-v"},  // ed -s XPATH -t elem -n NAME -v V
    {"xmlstarlet xml", "--name", "--value"},
    {"iscsiadm", "-n", "-v"},  // -o update -n node.session.auth.password -v V
    {"iscsiadm", "--name", "--value"},
    {"gh", "set", "--body"},  // gh variable set DB_PASSWORD --body V
    {"gh", "set", "-b"},
};
// In code, a call or block named by a quoted secret name, then one of these
// members: the secret's default (argparse's add_argument('--password',
// default=V), click.option, configparser's get(..., 'password',
// fallback=V), Terraform's variable "db_password" { default = V }).
inline constexpr std::string_view kDefaultNames[] = {"default", "fallback"};
// The word before a block's quoted name: Terraform's variable "NAME" {.
inline constexpr std::string_view kNamedBlocks[] = {"variable"};
// The first word of a name that marks a flag (--no-password, gpg's
// --list-secret-keys) or a bound or count (max_tokens=100, --max-tokens 100).
inline constexpr std::string_view kNonSecretFirstWords[] = {
    "no",      "stdin", "list", "delete", "max", "min", "num", "enable", "disable",
    "require",  // build and feature flags: -DENABLE_AUTH=ON
    "ask",      // a prompt's flag: ansible-playbook --ask-vault-pass --ask-become-pass
    "prompt"};
// A word anywhere in a name that makes it a reference to a secret kept
// elsewhere (Helm charts' auth.existingSecret=NAME).
inline constexpr std::string_view kReferenceWords[] = {"existing"};
// Header names that carry credentials although they hold no secret word.
inline constexpr std::string_view kCredentialHeaders[] = {
    "authorization",    "proxy-authorization", "cookie", "set-cookie",
    "x-honeycomb-team",  // Honeycomb's API key
    "authentication",    // some APIs' name for Authorization
    "x-session-id",      // a session's bearer id
};
// In a header option's value, a name ending in -key or _key is a
// credential (Fastly-Key, X-Appwrite-Key), but for these: a request's own
// nonces and ids.
inline constexpr std::string_view kNonCredentialKeyHeaders[] = {
    "idempotency-key", "x-idempotency-key", "sec-websocket-key"};
// In a header option's value, a name ending in one of these says who asks,
// not with what (X-Auth-Email, X-Auth-User), though its other words name a
// credential.
inline constexpr std::string_view kHeaderIdentityWords[] = {"email", "user", "username"};
// Glued by ':' to a secret option's name, where its value is read from
// (keytool's and jarsigner's -storepass:env NAME, -keypass:file F).
inline constexpr std::string_view kOptionSources[] = {"env", "file"};
// Names of many secrets that, with ':' glued to a word, are a task's
// namespace rather than a name given a value (rails credentials:edit,
// Symfony's secrets:set NAME); "credentials: X" in YAML is still a value.
inline constexpr std::string_view kTaskNamespaces[] = {"credentials", "secrets", "tokens"};
// A secret word's task, ':' glued before it (heroku auth:token, eas
// secret:create, php artisan jwt:secret, sfdx auth:web:login): the value
// after a secret name's ':' is a command, not a secret, when it is one of
// these (or ends in one, after more colons).
inline constexpr std::string_view kTaskVerbs[] = {
    "login",    "logout", "whoami",   "token",  "create", "list",   "ls",      "set",      "unset",
    "get",      "delete", "remove",   "rm",     "add",    "update", "edit",    "show",     "view",
    "generate", "rotate", "reset",    "revoke", "import", "export", "store",   "push",     "pull",
    "bulk",     "keys",   "secret",   "status", "clear",  "grant",  "open",    "display",  "info",
    "describe", "upload", "download", "sync",   "init",   "setup",  "destroy", "configure"};
// Rule 1 in prose: after one of a tool's options for a message, a title or
// a body, "Name: value" holds a secret only as one word ("password: X");
// "auth: fix token refresh" is a commit's subject.
// (A word of some tools, an option or a subcommand: here and in
// kToolStdinSecretOptions.)
struct ToolWord {
  std::string_view tools;  // space-separated names
  std::string_view option;
};
// Rule 11: a tool's option whose value is a command string a shell runs
// (gcloud compute ssh VM --command 'CMD', ansible all -m shell -a 'CMD'):
// rules 8 and 9 hold in it, as after sh -c.
inline constexpr ToolWord kCommandStringOptions[] = {
    {"gcloud", "--command"},  // compute ssh, compute tpus tpu-vm ssh
    {"ansible", "-a"},        // a module's arguments: shell's and command's a command
    {"ansible", "--args"},       {"az", "--scripts"},  // az vm run-command invoke --scripts 'CMD'
    {"fly flyctl", "-C"},                              // fly ssh console -C 'CMD'
    {"fly flyctl", "--command"}, {"eb", "--command"},  // eb ssh --command 'CMD'
    {"doctl", "--ssh-command"},  // doctl compute ssh DROPLET --ssh-command 'CMD'
    {"vagrant", "--command"},    // vagrant ssh --command 'CMD' (-c: a shell's option)
};
inline constexpr ToolWord kProseOptions[] = {
    {"git", "-m"},
    {"git", "--message"},
    {"gh glab", "--title"},
    {"gh glab", "-t"},
    {"gh glab", "--body"},
    {"gh", "-b"},
    {"glab", "--description"},
    {"glab", "-d"},
    {"hg svn", "-m"},
    {"hg svn", "--message"},
};
// A bare argument naming a secret makes the next one secret
// (nmcli ... password V, some CLIs' key-value pairs).
inline constexpr std::string_view kSecretKeywords[] = {"password", "passphrase", "psk"};
// SQL's comparisons: after a keyword or setting's name they make it a column
// compared, no secret given (WHERE password IS NULL, token LIKE 'tmp%').
inline constexpr std::string_view kSqlComparisons[] = {"is",  "like", "ilike", "in",
                                                       "not", "<>",   "!="};
// Rule 11: words before a command's name in a command line, which run the
// command named after them (with their own options, assignments and counts
// in between): sudo -u root curl ..., env A=1 curl ..., if curl ...; then.
// And ssh's options whose value is a command line, in their "NAME command"
// form (ssh -o 'ProxyCommand sshpass -p X ssh j' h), and package runners.
inline constexpr std::string_view kCommandPrefixes[] = {
    "sudo", "doas", "env", "exec",
    "eval",    // eval mysql -pX, its words unquoted
    "coproc",  // coproc [NAME] CMD
    "command", "builtin", "nohup", "time", "nice", "ionice", "timeout", "stdbuf", "xargs",
    "busybox",
    // Tools that run a command given after their own arguments.
    "setsid", "unshare", "nsenter", "chroot", "runuser", "pkexec", "flock", "chronic", "caffeinate",
    "unbuffer", "strace", "ltrace", "valgrind", "faketime", "fakeroot", "firejail", "torsocks",
    "proxychains", "proxychains4", "chrt", "taskset", "numactl", "prlimit", "setarch", "xvfb-run",
    "screen", "systemd-run", "watch", "parallel",
    "bwrap",   // bwrap --ro-bind / / CMD
    "dotenv",  // dotenv -e .env -- CMD
    "find",    // find -exec CMD
    "ssh",     // ssh HOST CMD
    "mosh",    // mosh HOST -- CMD
    "then", "do", "else", "elif", "if", "while", "until", "!", "{",
    "function",  // function NAME { CMD; }: its name no command, its brace a group's
    "ProxyCommand", "LocalCommand", "RemoteCommand", "KnownHostsCommand",
    "npx",  // package runners: npx vercel env add ...
    "bunx", "uvx",
    "RUN",  // a Dockerfile's RUN line, written by a here-document
};
// Rule 11: a tool that runs a command given after one of its subcommands
// (docker exec db mysql -pX, kubectl exec pod -- curl -u ...), from then
// on as a prefix does.
struct ToolSubcommands {
  std::string_view tools;        // space-separated names
  std::string_view subcommands;  // space-separated
};
inline constexpr ToolSubcommands kRunnerSubcommands[] = {
    {"docker podman nerdctl docker-compose podman-compose", "run exec create"},
    {"crictl", "exec"},  // crictl exec -it CONTAINER CMD
    {"kubectl oc", "exec run debug rsh"},
    {"lxc incus", "exec"},
    {"ip", "exec"},                 // ip netns exec NAME CMD
    {"gdb", "--args"},              // gdb --args CMD ARGS
    {"lldb", "--"},                 // lldb -- CMD ARGS
    {"perf", "record stat trace"},  // perf record -g -- CMD
    // Secret injectors: op run -- CMD, aws-vault exec PROFILE -- CMD.
    {"op doppler infisical pipx", "run"},
    {"aws-vault chamber direnv", "exec"},
    {"distrobox toolbox", "enter run"},  // distrobox enter BOX -- CMD
    // Package and environment managers: npm exec -- CMD, mise exec -- CMD,
    // nix develop -c CMD, bundle exec CMD, poetry run CMD.
    {"npm pnpm yarn bun", "exec dlx x"},
    {"mise rtx asdf pyenv rbenv nodenv goenv", "exec x"},
    {"nix", "develop shell"},
    {"devbox pixi poetry pdm hatch uv rye pipenv conda mamba micromamba", "run"},
    {"bundle", "exec"},
    {"multipass devcontainer", "exec"},
};
// Rules 8 and 9 off after one of these subcommands: a password manager's
// reader, whose words name an item's fields and items (bw get password
// ITEM), not a secret's value.
inline constexpr ToolSubcommands kFieldReaderSubcommands[] = {
    {"bw", "get"},
    {"lpass", "show"},
    {"keepassxc-cli", "show"},
};
// Rule 11, pipelines: a command that reads a secret from its standard
// input, by one of these options or by its name, makes the arguments of an
// echo or printf piped into it secret (echo X | docker login
// --password-stdin, echo u:X | chpasswd).
inline constexpr std::string_view kStdinSecretOptions[] = {"--password-stdin", "--with-token",
                                                           "--data-file=-"};
// kubeseal: what it reads is a Secret to seal.
inline constexpr std::string_view kStdinSecretCommands[] = {
    "chpasswd",
    "passwd",
    "cryptsetup",
    "wpa_passphrase",
    "sshpass",
    "kubeseal",
    "argon2",
    "kinit",
    "mysql_config_editor",
    "vncpasswd",
    "tigervncpasswd",  // vncpasswd -f <<< PW > ~/.vnc/passwd
    "keepassxc-cli",   // the database's password (echo yes answers: kConfirmations)
    "keytool",         // a keystore's passwords, when none is given as an option
    "gocryptfs",       // gocryptfs -init DIR, gocryptfs DIR MOUNT: the password
    "ssh-add",         // a key's passphrase without a terminal, or the key (ssh-add -)
    "ecryptfs-add-passphrase",
    "ecryptfs-wrap-passphrase",
    "ecryptfs-unwrap-passphrase",
    "systemd-ask-password",  // systemd-ask-password --no-tty: the answer
    "age",                   // the plaintext it encrypts
    "openfortivpn"};         // its password, when no -p gives it
// Rule 11: a text fed to such a command that answers a question (echo yes |
// keytool -importcert ...), no secret.
inline constexpr std::string_view kConfirmations[] = {"y", "yes", "n", "no"};
// Rule 16: a substitution's pattern that is a default password, its
// replacement the secret (sed -i 's/changeme/X/' db.conf).
inline constexpr std::string_view kPlaceholderPasswords[] = {"changeme", "change_me", "changeit",
                                                             "replaceme", "replace_me"};
// A word that makes a secret's name a placeholder without marks around it
// (s/TOKEN_PLACEHOLDER/X/, s/YOUR_API_KEY/X/; marked: s/__TOKEN__/X/).
// WordPress's wp-config-sample.php: s/password_here/X/.
inline constexpr std::string_view kPlaceholderWords[] = {"placeholder", "your", "replace", "here"};
// Rule 11: an option or variable whose value is a command that prints a
// secret (restic --password-command 'echo X', BORG_PASSCOMMAND="echo X",
// msmtp --passwordeval): what an echo or printf in it prints is secret.
// The name's end, in any case, '-', '_' and '.' left out.
inline constexpr std::string_view kSecretCommandNames[] = {
    "passwordcommand", "passcommand",  "passwordcmd",
    "passcmd",         "passwordeval", "extpass"};  // encfs --extpass, gocryptfs -extpass
// The same for one tool's option or subcommand; a one-letter option also
// among other one-letter flags (echo X | sudo -kS cmd).
inline constexpr ToolWord kToolStdinSecretOptions[] = {
    {"sudo", "-S"},
    {"sudo", "--stdin"},
    {"passwd", "--stdin"},
    {"smbpasswd", "-s"},
    {"htpasswd", "-i"},
    {"openssl", "-stdin"},             // openssl passwd -stdin
    {"gpg gpg2", "--passphrase-fd"},   // --passphrase-fd 0
    {"vault bao", "-"},                // vault login -
    {"docker podman", "secret"},       // docker secret create NAME -
    {"kubectl oc", "secret"},          // kubectl create secret ... /dev/stdin
    {"gh", "secret"},                  // gh secret set NAME, value on stdin
    {"fly flyctl", "secrets"},         // fly secrets import
    {"sshfs", "password_stdin"},       // sshfs -o password_stdin (or in a list of -o's)
    {"vercel", "env"},                 // vercel env add NAME ENV
    {"op", "signin"},                  // op signin --raw
    {"wrangler", "secret"},            // wrangler secret put NAME
    {"secret-tool", "store"},          // secret-tool store --label=L ATTR VALUE
    {"pass gopass", "insert"},         // pass insert -e NAME
    {"keyctl", "padd"},                // keyctl padd TYPE NAME KEYRING
    {"databricks", "configure"},       // databricks configure --token: host, then token
    {"wg", "pubkey"},                  // the private key whose public key it prints
    {"realm", "join"},                 // realm join -U admin DOMAIN
    {"circleci", "store-secret"},      // circleci context store-secret ... NAME
    {"gcloud", "--plaintext-file=-"},  // gcloud kms encrypt --plaintext-file=-
    {"az", "secret"},                  // az keyvault secret set ... --file /dev/stdin
    {"az", "devops"},                  // az devops login: a PAT
    // Elastic's keystores: filebeat keystore add NAME --stdin.
    {"filebeat metricbeat auditbeat heartbeat packetbeat logstash-keystore elasticsearch-keystore "
     "kibana-keystore",
     "--stdin"},
    {"logstash-keystore elasticsearch-keystore kibana-keystore opensearch-keystore", "-x"},
    {"supabase", "secrets"},              // supabase secrets set --env-file /dev/stdin
    {"glab", "--stdin"},                  // glab auth login --stdin
    {"hcloud", "context"},                // hcloud context create NAME: the token
    {"consul etcdctl", "put"},            // consul kv put KEY -, etcdctl put KEY
    {"openssl", "stdin"},                 // openssl enc -pass stdin
    {"systemd-creds", "encrypt"},         // systemd-creds encrypt --name=N - OUT
    {"ansible-vault", "encrypt_string"},  // encrypt_string --stdin-name NAME
    {"adcli", "--stdin-password"},
    {"ldappasswd ldapsearch ldapmodify ldapadd ldapdelete ldapwhoami", "-y"},  // -y /dev/stdin
    {"ssh-keygen", "/dev/stdin"},  // ssh-keygen -y -f /dev/stdin: a private key
    {"openconnect", "--passwd-on-stdin"},
    {"etcdctl", "--interactive=false"},  // etcdctl user add|passwd NAME --interactive=false
    {"ftp", "-n"},       // ftp -n h <<END: its commands give the password (user NAME PASSWORD)
    {"p4", "login"},     // Perforce's p4 login reads the password
    {"keyring", "set"},  // keyring set SERVICE USER
    {"lpass", "--non-interactive"},  // lpass add --non-interactive NAME: its fields
    {"veracrypt", "--stdin"},
    {"psql", "-W"},  // psql -W: a password prompt, read from stdin without a terminal
    {"psql", "--password"},
    {"nmcli", "--ask"},  // nmcli --ask dev wifi connect SSID: the Wi-Fi password
    {"nmcli", "-a"},
    {"mkpasswd", "-s"},  // mkpasswd -s: the password to hash
    {"mkpasswd", "--stdin"},
    {"cosign", "--key"},  // cosign sign --key k.key: the key's password
    {"cosign", "generate-key-pair"},
    {"cosign", "import-key-pair"},
    {"bw", "unlock"},                        // Bitwarden's master password
    {"elasticsearch-reset-password", "-i"},  // the new password, asked
    {"elasticsearch-reset-password", "--interactive"},
    {"rclone", "obscure"},       // rclone obscure -: the password to obscure
    {"pkcs11-tool", "--login"},  // without --pin, the PIN is read
    {"pkcs11-tool", "-l"},
    // The AWS CLI's parameter read from standard input (aws kms encrypt
    // --plaintext fileb:///dev/stdin, --secret-string file:///dev/stdin).
    {"aws", "fileb:///dev/stdin"},
    {"aws", "file:///dev/stdin"},
    {"duplicacy", "-e"},        // duplicacy init -e: the storage's password
    {"duplicacy", "password"},  // duplicacy password: the new one
    {"bw", "login"},
    {"firebase", "functions:secrets:set"},  // firebase functions:secrets:set NAME
    {"pdbedit", "-t"},                      // pdbedit -a -t -u USER: the password, twice
    {"pdbedit", "--password-from-stdin"},
    {"ipa", "--password"},        // ipa user-add NAME --password: read without a terminal
    {"saslpasswd2", "-p"},        // saslpasswd2 -p -c USER: the password, on a line
    {"codex", "--with-api-key"},  // codex login --with-api-key
    {"llm", "keys"},              // llm keys set NAME: the key, without a terminal
    {"zfs", "load-key"},          // a dataset's passphrase (keylocation=prompt)
    {"zfs", "change-key"},
    {"zfs", "keyformat=passphrase"},  // zfs create -o encryption=on -o keyformat=passphrase
};
// Rule 11, pipelines: a value that names the standard input, as the value
// of a secret name (password=-, --from-file=token=/dev/stdin) or after an
// option whose name is secret (--secret-string file:///dev/stdin,
// --password-file /dev/stdin), also makes what is piped in secret.
inline constexpr std::string_view kStdinPaths[] = {
    "-", "/dev/stdin", "file:///dev/stdin", "@-", "@/dev/stdin", "/dev/fd/0", "/proc/self/fd/0",
};
// A secret option's value that says whether or how, not what: a flag's
// (--secret true, msmtp's --auth=on) or an SASL mechanism (swaks --auth
// LOGIN, mailx -S smtp-auth=login).
inline constexpr std::string_view kFlagValues[] = {
    "true",  "false", "on",       "off",     "yes",         "no",
    "login", "plain", "cram-md5", "xoauth2", "oauthbearer", "ntlm",
};
// Code's literals that hold no secret, as a secret name's bare value
// ({'verify_signature': False}, api_key = None, "token": null).
inline constexpr std::string_view kCodeLiterals[] = {"none", "null",  "nil",
                                                     "true", "false", "undefined"};
// Rule 11: an option's name ending so, without '-', '_' and '.', names a
// file of secrets though it holds no secret word: curl --netrc-file
// <(printf 'machine h login u password X'), openvpn --askpass <(echo X),
// initdb --pwfile=<(echo X), fetchmail --fetchmailrc <(echo 'poll h password X').
inline constexpr std::string_view kSecretFileOptionEnds[] = {"netrcfile", "askpass", "pwfile",
                                                             "passfile", "fetchmailrc"};
// Rule 11: a tool's option naming its config file, whose lines hold its
// password (fetchmail -f <(printf 'poll h password X'), mbsync -c <(printf
// 'Pass X')), or its password file (NSS's certutil -f): what a process
// substitution there prints is secret.
inline constexpr ToolWord kSecretFileOptions[] = {
    {"fetchmail", "-f"},
    {"mbsync", "-c"},
    {"mbsync", "--config"},
    {"msmtp", "-C"},
    {"msmtp", "--file"},
    {"offlineimap", "-c"},
    {"s3cmd", "-c"},
    {"s3cmd", "--config"},
    {"certutil", "-f"},
    // Files whose content is a secret's value: kubeseal --raw's, a plaintext
    // Cloud KMS encrypts.
    {"kubeseal", "--from-file"},
    {"gcloud", "--plaintext-file"},
    // Ansible's vault password as a file, labelled or not (--vault-id prod@FILE).
    {"ansible ansible-playbook ansible-vault ansible-pull ansible-console", "--vault-id"},
};
// Rule 11: the shell's builtins that read their input into the variables
// they name (read -r TOKEN <<< X).
inline constexpr std::string_view kReadCommands[] = {"read", "mapfile", "readarray"};
inline constexpr std::string_view kEchoCommands[] = {"echo", "printf", "yes"};  // yes PW | passwd
// Rule 11, files: what an echo or printf writes to a file (> FILE, >> FILE)
// or pipes into tee FILE is secret when the file's name, without a leading
// '.', is a secret name (token, api_key.txt, git-credentials) or one of
// these credential files (echo "machine h login u password X" > ~/.netrc;
// PgBouncer's userlist.txt holds "user" "password" lines, fetchmail's rc
// "poll h user u password X" lines).
inline constexpr std::string_view kCredentialFiles[] = {
    "netrc",      "pgpass",   "npmrc",  "pypirc",      "my.cnf",       "id_rsa",
    "id_ed25519", "id_ecdsa", "id_dsa", "kaggle.json", "userlist.txt", "fetchmailrc"};
// Rule 11, config files: what an echo or printf writes to one (> FILE,
// >> FILE, or piped into tee FILE) is lines of "NAME VALUE", whose value is
// secret after a secret name (echo "requirepass X" >> redis.conf, ~/.msmtprc's
// "password X"): a file's name ending in one of these, or a dot file ending
// in "rc".
inline constexpr std::string_view kConfigFileSuffixes[] = {".conf", ".cfg", ".cnf", ".ini",
                                                           ".fish"};
inline constexpr std::string_view kTeeCommands[] = {"tee"};
// Rule 16: a sed script's a, i and c commands write their text as a line.
inline constexpr std::string_view kSedCommands[] = {"sed", "gsed"};
// Rule 11: commands that copy a file, its input too (install -m 600
// /dev/stdin ~/.pgpass <<< X, dd of=token <<< X): to a credential file,
// what they read is secret.
inline constexpr std::string_view kCopyCommands[] = {"install", "cp", "dd"};  // dd of=FILE
// Shells: after -c (-lc, ...) their argument is a shell's command string,
// where a leading assignment's value ends with its word as the shell reads
// it (rule 5: A_TOKEN='x y' gh pr create keeps gh pr create).
inline constexpr std::string_view kShells[] = {"sh",  "bash", "dash", "zsh",
                                               "ksh", "mksh", "ash",  "su"};
// PowerShell: its command string (-c) expands $name as a shell's does (a
// backtick, not a backslash, escapes the '$'), so a variable's reference
// there holds no secret.
inline constexpr std::string_view kPowerShells[] = {"pwsh", "powershell", "pwsh.exe",
                                                    "powershell.exe"};
// Tools that hand their arguments to a shell as a command line (ssh's
// remote command, watch's, parallel's, tmux's): a command string, as after
// -c, where rules 8 and 9 hold for any command (ssh h 'tool config set
// api_key V').
inline constexpr std::string_view kShellCommandRunners[] = {
    "ssh",        "mosh",        "watch", "parallel", "tmux",
    "msfconsole",                   // -x 'set PASSWORD V'
    "kadmin",     "kadmin.local"};  // -q 'addprinc -pw V NAME'
// Of those, the ones whose command lines no POSIX shell runs: there '$' is
// itself, never a variable's reference.
inline constexpr std::string_view kLiteralCommandRunners[] = {"msfconsole", "kadmin",
                                                              "kadmin.local"};
// A crontab line's schedule before its command (0 3 * * * curl ..., echo
// '@daily curl ...' | crontab -): words of digits and "*,-/" only, or one
// of these.
inline constexpr std::string_view kCronSchedules[] = {"@reboot", "@yearly", "@annually", "@monthly",
                                                      "@weekly", "@daily",  "@midnight", "@hourly"};
// Searchers: their words are patterns and files, never a setting and its
// value (grep -r password src/ shows src/): rules 8 and 9 hold for none.
inline constexpr std::string_view kPatternSearchers[] = {
    "grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack", "ugrep", "pcregrep", "git-grep"};
// Authorization schemes followed by a credential in free text.
inline constexpr std::string_view kAuthSchemes[] = {"bearer", "basic"};
// SASL's PLAIN after SMTP's AUTH or IMAP's AUTHENTICATE: its initial
// response, base64 of the user and password (AUTH PLAIN X).
inline constexpr std::string_view kSaslCommands[] = {"auth", "authenticate"};
inline constexpr std::string_view kSaslPlain = "plain";
// Rule 6: a line protocol's command whose argument is a password, at a
// line's start and in capitals, as it is written to a client's input
// (nc h 6379 <<< "AUTH X", Redis'; telnet h 110 <<< "PASS X", POP3's and
// FTP's). A SASL mechanism after AUTH (AUTH PLAIN X) is left to the rule
// above.
inline constexpr std::string_view kProtocolPasswordCommands[] = {"AUTH", "PASS"};
// SMTP's AUTH LOGIN, on its own line: the user's line, then the password's
// (both base64). IMAP's LOGIN after a tag (a1 LOGIN bob X): the user, then
// the password.
inline constexpr std::string_view kLoginCommand = "LOGIN";
inline constexpr std::string_view kLoginCommandLower = "login";

// ---- Capability URLs: the URL itself is the credential.
// After a path segment named like this, the rest of the path is secret
// (Feishu's and Lark's bots: /open-apis/bot/v2/hook/TOKEN).
inline constexpr std::string_view kCapabilitySegments[] = {"webhooks", "webhook", "webhookb2",
                                                           "hook"};
// On a host starting like this, the path after its first segment is secret
// (hooks.slack.com/services/..., hooks.zapier.com/hooks/..., IFTTT's
// maker.ifttt.com/trigger/EVENT/with/key/KEY).
inline constexpr std::string_view kCapabilityHostPrefixes[] = {"hooks.", "maker.ifttt."};
// On these hosts a path segment bot<digits>... is a bot's token (Telegram's
// Bot API: /bot123:AA.../sendMessage, /file/bot123:AA.../path): after "bot".
inline constexpr std::string_view kBotTokenHosts[] = {"api.telegram.org"};
// In a URL of these schemes the path after its first segment (the
// application) is a stream key (rtmp://a.rtmp.youtube.com/live2/KEY).
inline constexpr std::string_view kStreamKeySchemes[] = {"rtmp", "rtmps", "rtmpt", "rtmpe",
                                                         "rtmpts"};
// Rule 7: a CI's command that masks the rest of its line in its logs, which
// is therefore a secret (echo "::add-mask::$TOKEN", GitHub Actions';
// Azure Pipelines' ##vso[task.setsecret]V).
inline constexpr std::string_view kMaskMarkers[] = {"::add-mask::", "##vso[task.setsecret]"};
// Azure Pipelines' command that sets a variable to the rest of its line:
// a secret's when its properties say issecret=true or name a secret
// (##vso[task.setvariable variable=dbPassword;issecret=true]V).
inline constexpr std::string_view kSetVariableCommand = "##vso[task.setvariable";
// GitHub Actions' commands that set a named value to the rest of the line,
// a secret's when the name is (::set-output name=token::V).
inline constexpr std::string_view kWorkflowSetCommands[] = {"::set-output ", "::set-env ",
                                                            "::save-state "};
// Image digests look like userinfo without a scheme (img:tag@sha256:...).
inline constexpr std::string_view kDigestPrefixes[] = {"sha256:", "sha512:"};

// Impacket's scripts, which take [domain/]user[:password]@target, and
// those that take [domain/]user[:password] alone.
inline constexpr std::string_view kImpacketTargetTools =
    "impacket-psexec impacket-smbexec impacket-wmiexec impacket-dcomexec impacket-atexec "
    "impacket-secretsdump impacket-mssqlclient impacket-smbclient psexec.py smbexec.py "
    "wmiexec.py dcomexec.py atexec.py secretsdump.py mssqlclient.py";
inline constexpr std::string_view kImpacketDomainTools =
    "impacket-GetUserSPNs impacket-GetNPUsers impacket-getTGT GetUserSPNs.py GetNPUsers.py "
    "getTGT.py";
inline constexpr std::string_view kImpacketValueOptions =
    "-hashes -aesKey -target-ip -dc-ip -dc-host -port -codec -file -service-name "
    "-remote-binary-name -shell-type -outputfile -keytab -db -usersfile -format -spn";

// Net-SNMP's commands, which share its options.
inline constexpr std::string_view kSnmpTools =
    "snmpwalk snmpget snmpset snmpbulkwalk snmpbulkget snmpgetnext snmptrap snmpinform snmptable "
    "snmpdelta snmpstatus snmpdf snmpnetstat snmpusm snmpvacm snmptest";
// Poppler's PDF tools, which take -upw and -opw.
inline constexpr std::string_view kPopplerTools =
    "pdftotext pdftoppm pdfinfo pdfimages pdffonts pdftohtml pdftocairo pdfseparate pdfunite "
    "pdfdetach pdfattach pdftops pdfsig";
// Key files' extensions: a value ending in one names a file (Value::kUnlessPath).
inline constexpr std::string_view kKeyFileExtensions[] = {".pem", ".key", ".p12", ".pfx",
                                                          ".der", ".jks", ".ppk"};

// ---- Options of particular tools.
enum class Value : unsigned char {
  kWhole,          // the whole value
  kAfterColon,     // user:pass, file:pass: after the first ':' (and a token-shaped user)
  kAfterComma,     // user,pass (lftp)
  kAfterPercent,   // user%pass (smbclient)
  kHeader,         // "Name: value", secret when Name is (see kCredentialHeaders)
  kPassSource,     // OpenSSL's pass:SECRET, key:SECRET, hexkey:SECRET (env:, file:, fd:,
                   // stdin and digest:NAME hold none)
  kCookies,        // name=value cookies (a value without '=' is a cookie file)
  kConnectString,  // Oracle's user/pass@db: after the first '/' before any '@', to the '@'
  kUnlessPath,     // the whole value, unless it names a file (/ ~ . file: or kKeyFileExtensions)
  kTarget,         // impacket's [domain/]user:pass@host: from the first ':' to the last '@'
  kReference,  // nothing, and no other rule: the value names a secret, holds none (id=npm,src=F)
};
// The forms in which an option takes its value.
enum Form : unsigned char {
  kAttached = 1,  // -pV, --opt=V, /p:V
  kSeparate = 2,  // -p V, --opt V
  kBundled = 4,   // after other one-letter flags: -sSLu V, -sSLuV
};

struct ToolOption {
  std::string_view tools;   // space-separated names; "*" is every tool
  std::string_view option;  // as typed: "-p", "--user", "-passin", "/p:"
  Value value;
  unsigned char forms;
  std::string_view after;  // only once an argument equal to this was seen ("" always)
};

inline constexpr unsigned char kBoth = kAttached | kSeparate;
inline constexpr unsigned char kCurlish = kAttached | kSeparate | kBundled;

// tpm2-tools' commands, as separate binaries and as tpm2's subcommands.
inline constexpr std::string_view kTpm2Tools =
    "tpm2 tpm2_createprimary tpm2_create tpm2_load tpm2_evictcontrol tpm2_nvdefine tpm2_nvwrite "
    "tpm2_nvread tpm2_unseal tpm2_changeauth tpm2_clear tpm2_sign tpm2_hierarchycontrol "
    "tpm2_dictionarylockout tpm2_policysecret";

inline constexpr ToolOption kToolOptions[] = {
    {"*", "--header", Value::kHeader, kBoth, ""},
    {"*", "--proxy-header", Value::kHeader, kBoth, ""},
    {"curl curlie", "-u", Value::kAfterColon, kCurlish, ""},
    {"curl curlie", "--user", Value::kAfterColon, kBoth, ""},
    {"curl", "-U", Value::kAfterColon, kCurlish, ""},
    {"curl", "--proxy-user", Value::kAfterColon, kBoth, ""},
    {"curl", "-E", Value::kAfterColon, kCurlish, ""},
    {"curl", "--cert", Value::kAfterColon, kBoth, ""},
    {"curl", "--proxy-cert", Value::kAfterColon, kBoth, ""},
    {"curl", "--ftp-account", Value::kWhole, kBoth, ""},  // FTP's ACCT data
    {"curl curlie", "-H", Value::kHeader, kCurlish, ""},
    {"curl curlie", "-b", Value::kCookies, kCurlish, ""},
    {"curl curlie", "--cookie", Value::kCookies, kBoth, ""},
    {"etcdctl", "--user", Value::kAfterColon, kBoth, ""},
    // HTTPie's and xh's -a: a bearer token whole once the type says so
    // (-A bearer, --auth-type=bearer), else user:password.
    {"http https xh xhs", "-a", Value::kWhole, kBoth, "bearer"},
    {"http https xh xhs", "--auth", Value::kWhole, kBoth, "bearer"},
    {"http https xh xhs", "-a", Value::kWhole, kBoth, "--auth-type=bearer"},
    {"http https xh xhs", "--auth", Value::kWhole, kBoth, "--auth-type=bearer"},
    {"http https xh xhs", "-a", Value::kAfterColon, kBoth, ""},
    {"prefect", "-k", Value::kWhole, kBoth, "login"},  // prefect cloud login -k KEY
    {"prefect", "--key", Value::kWhole, kBoth, "login"},
    {"databricks", "--string-value", Value::kWhole, kBoth, ""},  // secrets put-secret
    {"http https xh xhs", "--auth", Value::kAfterColon, kBoth, ""},
    {"xh xhs", "--bearer", Value::kWhole, kBoth, ""},
    {"ncat", "--proxy-auth", Value::kAfterColon, kBoth, ""},
    {"ntfy", "-u", Value::kAfterColon, kBoth, ""},  // ntfy publish -u user:pass
    {"ntfy", "--user", Value::kAfterColon, kBoth, ""},
    {"aws", "--plaintext", Value::kUnlessPath, kBoth, "encrypt"},  // kms encrypt --plaintext X
    {"ab", "-A", Value::kAfterColon, kBoth, ""},
    {"ab", "-P", Value::kAfterColon, kBoth, ""},
    {"ab", "-C", Value::kCookies, kBoth, ""},
    {"hey", "-a", Value::kAfterColon, kBoth, ""},
    {"nikto nikto.pl", "-id", Value::kAfterColon, kBoth, ""},
    {"gobuster", "-P", Value::kWhole, kBoth, ""},
    {"sqlmap", "--auth-cred", Value::kAfterColon, kBoth, ""},  // --auth-cred u:V
    {"gobuster", "--password", Value::kWhole, kBoth, ""},
    // Secret managers' values: akeyless create-secret --value V, conjur
    // variable set -v V.
    {"akeyless", "--value", Value::kWhole, kBoth, ""},
    {"koyeb", "--value", Value::kWhole, kBoth, "secrets"},  // koyeb secrets create NAME --value V
    {"lego", "--hmac", Value::kWhole, kBoth, ""},  // lego --eab --kid K --hmac V: an EAB key
    {"conjur", "-v", Value::kWhole, kBoth, "set"},
    {"conjur", "--value", Value::kWhole, kBoth, "set"},
    {"lftp open", "-u", Value::kAfterComma, kBoth, ""},           // open: lftp -e "open -u u,p h"
    {"tf tf.exe", "/login:", Value::kAfterComma, kAttached, ""},  // TFVC's /login:USER,PASSWORD
    {"smbclient rpcclient smbget smbcacls winexe", "-U", Value::kAfterPercent, kBoth, ""},
    {"smbclient rpcclient smbcacls winexe", "--user", Value::kAfterPercent, kBoth, ""},
    {"mysql mariadb mysqldump mysqladmin mysqlimport mysqlshow mysqlcheck mysqlpump mysqlbinlog "
     "mysqlslap mariadb-dump mariadb-admin mariadb-import mariadb-show mariadb-check "
     "mariadb-binlog mariadb-slap mysqlsh mariabackup xtrabackup innobackupex",
     "-p", Value::kWhole, kAttached, ""},
    {"sshpass", "-p", Value::kWhole, kBoth, ""},
    {"twilio", "-p", Value::kWhole, kBoth, "login"},  // twilio login -u SID -p AUTH_TOKEN
    {"honeymarker honeyvent honeytail", "-k", Value::kWhole, kBoth, ""},  // Honeycomb's write key
    {"mimirtool cortextool", "--key", Value::kWhole, kBoth, ""},          // a Grafana Cloud API key
    {"cqlsh cypher-shell mycli couchbase-cli beeline mydumper myloader redfishtool gallery-dl",
     "-p", Value::kWhole, kBoth, ""},
    // Couchbase's tools: cbimport json -c H -u USER -p PASSWORD, cbq -u U -p P.
    {"cbimport cbexport cbq cbbackupmgr cbstats cbtransfer cbrestore cbbackup", "-p", Value::kWhole,
     kBoth, ""},
    {"f5fpc", "-p", Value::kWhole, kBoth, ""},  // F5's VPN client: f5fpc -s -u USER -p PASSWORD
    {"redis-cli keydb-cli valkey-cli redis-benchmark valkey-benchmark memtier_benchmark iredis",
     "-a", Value::kWhole, kBoth, ""},
    {"mongo mongosh mongodump mongorestore mongoexport mongoimport", "-p", Value::kWhole, kBoth,
     ""},
    {"sqlcmd bcp tsql mssql-cli", "-P", Value::kWhole, kBoth, ""},  // tsql: FreeTDS's
    {"kadmin kadmin.local vsql", "-w", Value::kWhole, kBoth, ""},   // vsql: Vertica's
    {"sendemail sendEmail", "-xp", Value::kWhole, kBoth, ""},
    {"influx", "-p", Value::kWhole, kBoth, "setup"},     // influx setup -p PASSWORD
    {"influx", "-p", Value::kWhole, kBoth, "password"},  // influx user password -n U -p PW
    {"influx", "-p", Value::kWhole, kBoth, "create"},    // influx user create -n U -p PW
    {"mosquitto_pub mosquitto_sub mosquitto_rr mqttx", "-P", Value::kWhole, kBoth, ""},
    {"ipmitool", "-P", Value::kWhole, kBoth, ""},
    {"ldapsearch ldapmodify ldapadd ldapdelete ldapwhoami ldappasswd", "-w", Value::kWhole, kBoth,
     ""},
    {kSnmpTools, "-c", Value::kWhole, kBoth, ""},  // a community
    {kSnmpTools, "-A", Value::kWhole, kBoth, ""},  // SNMPv3's authentication passphrase
    {kSnmpTools, "-X", Value::kWhole, kBoth, ""},  // and its privacy passphrase
    {"zip unzip", "-P", Value::kWhole, kSeparate, ""},
    {"7z 7za rar unrar", "-p", Value::kWhole, kAttached, ""},
    {"rar", "-hp", Value::kWhole, kAttached, ""},  // headers encrypted too
    {"openssl", "-pass", Value::kPassSource, kSeparate, ""},
    {"openssl", "-passin", Value::kPassSource, kSeparate, ""},
    {"openssl", "-passout", Value::kPassSource, kSeparate, ""},
    {"openssl", "-k", Value::kWhole, kSeparate, ""},
    {"openssl", "-K", Value::kWhole, kSeparate, ""},              // enc's raw key, in hex
    {"openssl", "-password", Value::kPassSource, kSeparate, ""},  // pkcs12 -password pass:V
    {"openssl", "-hmac", Value::kWhole, kSeparate, ""},           // dgst -hmac KEY
    {"openssl", "-macopt", Value::kPassSource, kSeparate, ""},    // mac -macopt key:V, hexkey:V
    {"keytool jarsigner", "-storepass", Value::kWhole, kSeparate, ""},
    {"keytool jarsigner", "-keypass", Value::kWhole, kSeparate, ""},
    {"keytool", "-srcstorepass", Value::kWhole, kSeparate, ""},
    {"keytool", "-deststorepass", Value::kWhole, kSeparate, ""},
    {"ssh-keygen", "-N", Value::kWhole, kBoth, ""},
    {"ssh-keygen", "-P", Value::kWhole, kBoth, ""},
    {"useradd usermod", "-p", Value::kWhole, kBoth, ""},
    {"twine", "-p", Value::kWhole, kBoth, ""},
    {"doctl influx codecov codecovcli ghr", "-t", Value::kWhole, kBoth,
     ""},                                         // ghr -t TOKEN TAG DIR
    {"jx", "-t", Value::kWhole, kBoth, "token"},  // jx create git token -t TOKEN USER
    // oras in every command (login, push, pull, copy); Apple's altool -u ID
    // -p APP_PASSWORD.
    {"rabbitmqadmin cpan-upload transcrypt git-secret ncftp ncftpput ncftpget ncftpls oras altool "
     "tabcmd",
     "-p", Value::kWhole, kBoth, ""},
    {"xfreerdp xfreerdp3 wlfreerdp freerdp sdl-freerdp sdl-freerdp3", "/p:", Value::kWhole,
     kAttached, ""},
    {"xfreerdp xfreerdp3 wlfreerdp freerdp sdl-freerdp sdl-freerdp3", "/gp:", Value::kWhole,
     kAttached, ""},  // the gateway's password
    {"rdesktop", "-p", Value::kWhole, kBoth, ""},
    {"winrm", "-p:", Value::kWhole, kAttached, ""},  // Windows' winrm -u:USER -p:PASSWORD
    {"winrs", "-p:", Value::kWhole, kAttached, ""},  // winrs -r:HOST -u:USER -p:PASSWORD
    {"winrs", "-password:", Value::kWhole, kAttached, ""},
    {"winrm", "-password:", Value::kWhole, kAttached, ""},
    {"az docker podman helm nerdctl buildah skopeo oc crane regctl cf cosign notation ibmcloud "
     "fly",  // Concourse's fly -t T login -u U -p PASSWORD (its set-pipeline -p is a name)
     "-p", Value::kWhole, kBoth, "login"},
    {"sops", "--set", Value::kWhole, kBoth, ""},  // --set 'PATH VALUE': the path too
    // PowerShell: Set-Item -Path env:DB_PASSWORD -Value V (a registry's
    // value too).
    {"Set-Item", "-Value", Value::kWhole, kBoth, ""},
    {"hydra medusa", "-p", Value::kWhole, kBoth, ""},  // -P is a file of passwords
    // SMB and WinRM clients: a password, or an NT hash (-H; smbmap's -H is
    // the host, its -p takes a password or a hash).
    {"smbmap crackmapexec cme nxc netexec evil-winrm bloodhound-python bloodhound-ce-python "
     "certipy certipy-ad enum4linux enum4linux-ng enum4linux.pl",
     "-p", Value::kWhole, kBoth, ""},
    {"crackmapexec cme nxc netexec evil-winrm", "-H", Value::kWhole, kBoth, ""},
    {kImpacketTargetTools, "-hashes", Value::kWhole, kBoth, ""},  // LM:NT
    {kImpacketDomainTools, "-hashes", Value::kWhole, kBoth, ""},
    {kImpacketTargetTools, "-aesKey", Value::kWhole, kBoth, ""},
    {kImpacketDomainTools, "-aesKey", Value::kWhole, kBoth, ""},
    {"p4", "-P", Value::kWhole, kBoth, ""},
    // A build's or service's secret by id and source: docker build --secret
    // id=npm,env=NPM_TOKEN, docker service create --secret db_pass.
    {"docker podman buildah nerdctl", "--secret", Value::kReference, kBoth, ""},
    {"pulumi", "--secret", Value::kReference, kSeparate, ""},  // a flag: config set --secret NAME V
    {"composer", "--auth", Value::kReference, kSeparate, ""},  // a flag: config --auth NAME V
    {"lpass", "--password", Value::kReference, kSeparate, "show"},  // a flag: show --password ITEM
    // TigerVNC's and TightVNC's viewers: -passwd names the password file;
    // a value not shaped as a path is still hidden (x11vnc's -passwd is the
    // password).
    {"vncviewer xtigervncviewer xvncviewer", "-passwd", Value::kUnlessPath, kBoth, ""},
    {"keepassxc-cli", "-a", Value::kReference, kBoth, ""},             // show -a password: a field
    {"trino presto", "--password", Value::kReference, kSeparate, ""},  // a flag: it prompts
    {"xcrun", "-p", Value::kWhole, kBoth, "altool"},
    {"signtool signtool.exe", "/p", Value::kWhole, kSeparate, ""},       // signtool sign /f F /p PW
    {"woodpecker-cli woodpecker", "--value", Value::kWhole, kBoth, ""},  // secret add --value V
    {"concourse", "--add-local-user", Value::kAfterColon, kBoth, ""},    // web: USER:PASSWORD
    // USER:API_TOKEN, or @FILE (java -jar jenkins-cli.jar -auth ...).
    {"jenkins-cli splunk java", "-auth", Value::kAfterColon, kBoth, ""},
    {"ngrok", "--basic-auth", Value::kAfterColon, kBoth, ""},  // ngrok http 80 --basic-auth U:P
    {"tctl", "--value", Value::kWhole, kBoth, "tokens"},  // Teleport's tctl tokens add --value T
    {"tsh", "--auth", Value::kReference, kBoth, ""},      // a connector's name (--auth=local)
    {"ftpasswd", "--passwd", Value::kReference, kSeparate, ""},  // a mode: --passwd --name U
    {"chisel", "--auth", Value::kAfterColon, kBoth, ""},         // chisel client --auth U:P
    // Solr's bin/solr ... -u USER:PASSWORD, auth enable -credentials USER:PASSWORD.
    {"solr", "-u", Value::kAfterColon, kBoth, ""},
    {"solr", "-credentials", Value::kAfterColon, kBoth, ""},
    {"solr", "--credentials", Value::kAfterColon, kBoth, ""},
    // hiera-eyaml's eyaml encrypt -s PLAINTEXT (decrypt's -s is ciphertext).
    {"eyaml hiera-eyaml", "-s", Value::kWhole, kBoth, "encrypt"},
    {"eyaml hiera-eyaml", "--string", Value::kWhole, kBoth, "encrypt"},
    // Gitea's and Forgejo's admin user change-password -u USER -p PASSWORD;
    // --random-password is a flag.
    {"gitea forgejo", "-p", Value::kWhole, kBoth, "change-password"},
    {"gitea forgejo", "--random-password", Value::kReference, kSeparate, ""},
    {"wscat", "--auth", Value::kAfterColon, kBoth, ""},
    {"llm tgpt", "--key", Value::kWhole, kBoth, ""},  // an LLM provider's key
    {"nodetool", "-pw", Value::kWhole, kBoth, ""},    // Cassandra's JMX password
    {"gsec", "-pw", Value::kWhole, kSeparate, ""},    // Firebird's: gsec -add bob -pw V
    // Smart cards, HSMs and TPMs: PINs, PUKs, management keys and auth values.
    {"pkcs11-tool softhsm2-util", "--pin", Value::kWhole, kBoth, ""},
    {"pkcs11-tool softhsm2-util", "--so-pin", Value::kWhole, kBoth, ""},
    {"pkcs11-tool", "--new-pin", Value::kWhole, kBoth, ""},
    {"pkcs11-tool", "-p", Value::kWhole, kBoth, ""},
    // Flags, whose names end in a secret's word.
    {"pkcs11-tool softhsm2-util", "--init-token", Value::kReference, kSeparate, ""},
    {"pkcs11-tool", "--init-pin", Value::kReference, kSeparate, ""},
    {"pkcs11-tool", "--change-pin", Value::kReference, kSeparate, ""},
    {"pkcs11-tool", "--unlock-pin", Value::kReference, kSeparate, ""},
    {"helm", "--pass-credentials", Value::kReference, kSeparate, ""},  // a flag
    {"vault bao", "-id", Value::kWhole, kBoth, "token"},             // vault token create -id TOKEN
    {"vault bao", "-token-only", Value::kReference, kSeparate, ""},  // a flag
    // A version pinned, no PIN: mise use --pin node@20, gh extension install --pin v1.
    {"mise rtx", "--pin", Value::kReference, kSeparate, ""},
    {"gh", "--pin", Value::kReference, kBoth, ""},
    {"ykman yubico-piv-tool", "-P", Value::kWhole, kBoth, ""},
    {"ykman", "--pin", Value::kWhole, kBoth, ""},
    {"ykman", "-n", Value::kWhole, kBoth, "change-pin"},
    {"ykman", "-n", Value::kWhole, kBoth, "change-puk"},
    {"ykman", "--new-pin", Value::kWhole, kBoth, ""},
    {"ykman", "--puk", Value::kWhole, kBoth, ""},
    {"ykman", "--new-puk", Value::kWhole, kBoth, ""},
    {"ykman", "-m", Value::kWhole, kBoth, ""},  // the PIV management key
    {"ykman", "--management-key", Value::kWhole, kBoth, ""},
    {"ykman", "--new-management-key", Value::kWhole, kBoth, ""},
    {"yubico-piv-tool", "-N", Value::kWhole, kBoth, ""},
    {"yubico-piv-tool", "--pin", Value::kWhole, kBoth, ""},
    {"yubico-piv-tool", "--new-pin", Value::kWhole, kBoth, ""},
    {"p11tool", "--set-pin", Value::kWhole, kBoth, ""},
    {"p11tool", "--set-so-pin", Value::kWhole, kBoth, ""},
    {kTpm2Tools, "-P", Value::kWhole, kBoth, ""},  // a hierarchy's or parent's auth value
    {kTpm2Tools, "-p", Value::kWhole, kBoth, ""},  // an object's
    {kTpm2Tools, "--auth", Value::kWhole, kBoth, ""},
    {kTpm2Tools, "--key-auth", Value::kWhole, kBoth, ""},
    {"blat", "-pw", Value::kWhole, kSeparate, ""},               // blat's SMTP password
    {"hdbsql", "-p", Value::kWhole, kBoth, ""},                  // SAP HANA's
    {"pd-send openai chatgpt", "-k", Value::kWhole, kBoth, ""},  // an integration's or API's key
    // Publishing to a package index as a user: poetry publish -u U -p PW.
    {"poetry", "-p", Value::kWhole, kBoth, "publish"},
    {"pdm", "-P", Value::kWhole, kBoth, "publish"},
    {"cabal", "-p", Value::kWhole, kBoth, "upload"},
    {"git", "-p", Value::kWhole, kBoth, "secret"},  // git secret reveal -p; elsewhere --paginate
    {"curlftpfs", "-o", Value::kAfterColon, kBoth, ""},         // -o user=USER:PASSWORD,...
    {"ktutil", "-password", Value::kReference, kSeparate, ""},  // a flag: addent -password -p P
    {"openvpn", "--auth-user-pass", Value::kReference, kSeparate, ""},  // a file, or a prompt
    {"forticlient openfortivpn", "-p", Value::kWhole, kBoth, ""},
    // kadmin's requests (kadmin -q 'addprinc -pw V NAME'): a principal's password.
    {"addprinc add_principal ank cpw change_password", "-pw", Value::kWhole, kSeparate, ""},
    // FreeIPA's installers: -a the admin's password, -p the Directory Manager's.
    {"ipa-server-install", "-a", Value::kWhole, kBoth, ""},
    {"ipa-server-install ipa-replica-install", "-p", Value::kWhole, kBoth, ""},
    {"ipa-replica-install ipa-client-install", "-w", Value::kWhole, kBoth, ""},
    {"agent-auth wazuh-agent-auth", "-P", Value::kWhole, kBoth, ""},  // an enrollment password
    // Nagios' plugins (monitoring-plugins).
    {"check_http check_curl", "-a", Value::kAfterColon, kBoth, ""},  // -a USER:PASSWORD
    {"check_mysql check_mysql_query check_pgsql check_disk_smb check_radius", "-p", Value::kWhole,
     kBoth, ""},
    {"check_ldap check_ldaps check_smtp check_mssql", "-P", Value::kWhole, kBoth, ""},
    {"check_snmp", "-C", Value::kWhole, kBoth, ""},  // a community
    {"check_snmp", "-A", Value::kWhole, kBoth, ""},  // SNMPv3's passphrases
    {"check_snmp", "-X", Value::kWhole, kBoth, ""},
    {"gcloud", "--secret", Value::kReference, kBoth, ""},  // a Secret Manager secret's name
    // --set-secrets=ENV=SECRET:VERSION: Cloud Run's references.
    {"gcloud", "--set-secrets", Value::kReference, kBoth, ""},
    {"gcloud", "--update-secrets", Value::kReference, kBoth, ""},
    {"knife", "-P", Value::kWhole, kBoth, ""},            // knife bootstrap's SSH password
    {"drone", "--data", Value::kWhole, kBoth, "secret"},  // drone secret add --data V
    {"skopeo podman buildah crictl", "--creds", Value::kAfterColon, kBoth, ""},
    {"ctr", "--user", Value::kAfterColon, kBoth, ""},  // ctr images pull --user USER:PASSWORD
    {"ctr", "-u", Value::kAfterColon, kBoth, ""},
    {"singularity apptainer", "-p", Value::kWhole, kBoth, "login"},
    {"skopeo", "--src-creds", Value::kAfterColon, kBoth, ""},
    {"skopeo", "--dest-creds", Value::kAfterColon, kBoth, ""},
    {"pscp psftp plink putty", "-pw", Value::kWhole, kSeparate, ""},
    {"az", "--value", Value::kWhole, kBoth, "secret"},
    {"az", "-p", Value::kWhole, kBoth, "server"},        // az sql server create -p PASSWORD
    {"az", "-p", Value::kWhole, kBoth, "user"},          // az vm user update -u U -p PASSWORD
    {"vercel", "--value", Value::kWhole, kBoth, "env"},  // vercel env add NAME ENV --value V
    {"glab", "-v", Value::kWhole, kBoth, "variable"},    // glab variable set -k NAME -v V
    {"glab", "--value", Value::kWhole, kBoth, "variable"},
    // Azure Pipelines' variables, secret or not (--secret true may follow).
    {"az", "--value", Value::kWhole, kBoth, "variable"},
    {"copilot", "--values", Value::kWhole, kBoth, "secret"},  // copilot secret init --values ENV=V
    {"aws", "--value", Value::kWhole, kBoth, "put-parameter"},
    {"aws", "--value", Value::kWhole, kBoth, "create-api-key"},  // API Gateway's key
    // ElastiCache's users (elsewhere --passwords is a word list: wpscan's).
    {"aws", "--passwords", Value::kWhole, kBoth, "create-user"},
    {"aws", "--passwords", Value::kWhole, kBoth, "modify-user"},
    {"gh", "-b", Value::kWhole, kBoth, "secret"},
    {"gh", "--body", Value::kWhole, kBoth, "secret"},
    {"swift", "-K", Value::kWhole, kBoth, ""},  // OpenStack Swift's key
    {"swift", "--key", Value::kWhole, kBoth, ""},
    {"racadm", "-p", Value::kWhole, kBoth, ""},
    {"vsce ovsx", "-p", Value::kWhole, kBoth, ""},  // a personal access token
    {"hatch", "-a", Value::kWhole, kBoth, "publish"},
    {"uv", "-t", Value::kWhole, kBoth, "publish"},
    {"uv", "-p", Value::kWhole, kBoth, "publish"},  // elsewhere uv's -p is a Python
    {"conan", "-p", Value::kWhole, kBoth, "login"},
    {"conan", "-p", Value::kWhole, kBoth, "user"},
    {"dotnet", "-k", Value::kWhole, kBoth, "push"},    // dotnet nuget push -k KEY
    {"dotnet", "-p", Value::kWhole, kBoth, "source"},  // nuget add/update source; not run -p
    {"choco", "-k", Value::kWhole, kBoth, ""},
    {"expo", "-p", Value::kWhole, kBoth, "login"},
    {"geth clef", "--password", Value::kReference, kBoth, ""},  // the password's file
    {"caprover", "-p", Value::kWhole, kBoth, ""},               // caprover deploy|login -p PASSWORD
    {"apksigner", "--ks-pass", Value::kPassSource, kSeparate, ""},
    {"apksigner", "--key-pass", Value::kPassSource, kSeparate, ""},
    // bundletool build-apks --ks-pass=pass:PW (or file:PATH)
    {"bundletool", "--ks-pass", Value::kPassSource, kBoth, ""},
    {"bundletool", "--key-pass", Value::kPassSource, kBoth, ""},
    {"Unity unity-editor", "-serial", Value::kWhole, kSeparate, ""},  // a license's serial
    {"elasticsearch-users", "-p", Value::kWhole, kBoth, ""},
    {"yt-dlp youtube-dl", "-p", Value::kWhole, kBoth, ""},
    {"transmission-remote", "-n", Value::kAfterColon, kBoth, ""},
    {"swaks", "-ap", Value::kWhole, kSeparate, ""},
    {"airflow", "-p", Value::kWhole, kBoth, "users"},         // not airflow webserver -p PORT
    {"llm", "--value", Value::kWhole, kBoth, "keys"},         // llm keys set NAME --value KEY
    {"bw", "--session", Value::kWhole, kBoth, ""},            // bw unlock's session key
    {"doveadm", "-p", Value::kWhole, kBoth, "pw"},            // doveadm pw -p PASSWORD
    {"ssmtp sendmail", "-ap", Value::kWhole, kSeparate, ""},  // ssmtp -au USER -ap PASSWORD
    {"testsaslauthd", "-p", Value::kWhole, kBoth, ""},        // testsaslauthd -u USER -p PASSWORD
    {"slappasswd", "-s", Value::kWhole, kBoth, ""},
    {"caddy", "--plaintext", Value::kWhole, kBoth, "hash-password"},
    {"caddy", "-p", Value::kWhole, kBoth, "hash-password"},
    {"pk12util", "-W", Value::kWhole, kBoth, ""},    // the PKCS #12 file's password
    {"pk12util", "-K", Value::kWhole, kBoth, ""},    // the key database's
    {"net", "-U", Value::kAfterPercent, kBoth, ""},  // Samba's net ads join -U user%pass
    {"wbinfo", "--authenticate", Value::kAfterPercent, kBoth, ""},  // wbinfo -a user%pass
    {"wbinfo", "-a", Value::kAfterPercent, kBoth, ""},
    {"net", "--user", Value::kAfterPercent, kBoth, ""},
    {"ldappasswd", "-s", Value::kWhole, kBoth, ""},  // the new password
    {"ldappasswd", "-a", Value::kWhole, kBoth, ""},  // the old one
    {"supabase", "-p", Value::kWhole, kBoth, ""},
    {"kubeadm", "--certificate-key", Value::kWhole, kBoth, ""},  // decrypts the uploaded certs
    // The CA's public key's hash, which a joining node checks; no secret.
    {"kubeadm", "--discovery-token-ca-cert-hash", Value::kReference, kBoth, ""},
    // A Kubernetes secret's name and key (cloud-credentials=cloud).
    {"velero", "--credential", Value::kReference, kBoth, ""},
    // Windows' tools (run over ssh, or in scripts): their passwords.
    {"cmdkey", "/pass:", Value::kWhole, kAttached, ""},
    {"wmic", "/password:", Value::kWhole, kAttached, ""},
    {"schtasks", "/rp", Value::kWhole, kSeparate, ""},
    {"schtasks", "/RP", Value::kWhole, kSeparate, ""},
    {"psexec psexec64 PsExec PsExec64 psexec.exe PsExec.exe PsExec64.exe", "-p", Value::kWhole,
     kSeparate, ""},
    // netdom join H /domain:D /userd:U /passwordd:PASSWORD (and the
    // computer's /passwordo:); ktpass /princ P /mapuser U /pass PASSWORD;
    // pvk2pfx -pvk K -spc C -pfx O -pi KEY_PASSWORD -po PFX_PASSWORD.
    {"netdom netdom.exe", "/passwordd:", Value::kWhole, kAttached, ""},
    {"netdom netdom.exe", "/passwordo:", Value::kWhole, kAttached, ""},
    {"ktpass ktpass.exe", "/pass", Value::kWhole, kSeparate, ""},
    {"pvk2pfx pvk2pfx.exe", "-pi", Value::kWhole, kSeparate, ""},
    {"pvk2pfx pvk2pfx.exe", "-po", Value::kWhole, kSeparate, ""},
    {"dsquery dsget dsmod dsadd dsrm dsmove", "-p", Value::kWhole, kSeparate, ""},
    {"dsadd dsmod", "-pwd", Value::kWhole, kSeparate, ""},
    {"certutil", "-p", Value::kWhole, kSeparate, ""},           // a PFX's password
    {"kaggle", "-v", Value::kWhole, kBoth, "config"},           // kaggle config set -n key -v KEY
    {"tailscale", "--authkey", Value::kUnlessPath, kBoth, ""},  // the key, or file:PATH
    {"tailscale", "--auth-key", Value::kUnlessPath, kBoth, ""},
    // gpg's flags that name secret keys, hold none.
    {"gpg gpg2", "--export-secret-keys", Value::kReference, kSeparate, ""},
    {"gpg gpg2", "--export-secret-subkeys", Value::kReference, kSeparate, ""},
    {"php", "--key", Value::kWhole, kBoth, "env:encrypt"},  // Laravel's artisan: the key
    {"php", "--key", Value::kWhole, kBoth, "env:decrypt"},
    // macOS keychains: -w PASSWORD when adding (find-generic-password's -w
    // is a flag).
    {"security", "-w", Value::kWhole, kSeparate, "add-generic-password"},
    {"security", "-w", Value::kWhole, kSeparate, "add-internet-password"},
    // A keychain's own password, and a PKCS #12 file's when importing it.
    {"security", "-p", Value::kWhole, kSeparate, "unlock-keychain"},
    {"security", "-p", Value::kWhole, kSeparate, "create-keychain"},
    {"security", "-k", Value::kWhole, kSeparate, "set-key-partition-list"},
    {"security", "-P", Value::kWhole, kSeparate, "import"},
    {"gitlab-runner", "-r", Value::kWhole, kBoth, "register"},  // the registration token
    // Serverless: config credentials -k KEY -s SECRET (elsewhere -s is a stage).
    {"serverless sls", "-s", Value::kWhole, kBoth, "credentials"},
    // Encrypted documents and files: poppler's user and owner passwords,
    // Office files, steganography, ccrypt's and mcrypt's keys, S3's
    // customer-provided keys.
    {kPopplerTools, "-upw", Value::kWhole, kSeparate, ""},
    {kPopplerTools, "-opw", Value::kWhole, kSeparate, ""},
    {"msoffcrypto-tool", "-p", Value::kWhole, kBoth, ""},
    {"steghide", "-p", Value::kWhole, kBoth, ""},
    {"ccrypt ccencrypt ccdecrypt", "-K", Value::kWhole, kBoth, ""},
    {"ccrypt ccencrypt ccdecrypt", "--key", Value::kWhole, kBoth, ""},
    {"mcrypt", "-k", Value::kWhole, kBoth, ""},
    {"mcrypt", "--key", Value::kWhole, kBoth, ""},
    {"aws", "--sse-c-key", Value::kWhole, kBoth, ""},
    {"aws", "--copy-source-sse-c-key", Value::kWhole, kBoth, ""},
};

// ---- Positional secrets: after an argument starting with `trigger` in
// any case, the argument `offset` places further on is secret (composer
// config http-basic.HOST USER PASSWORD); offset 0: after an argument equal to
// `trigger` in any case, the first that is neither an option nor NAME=value
// (vault login TOKEN, where vault login -method=userpass username=u
// password=p has none); kEveryOperand: after it ("" from the start), every
// such argument (redis-cli AUTH [USER] PASSWORD, where the password is the
// last and the user optional; openssl passwd -6 -salt S PASSWORD...).
// Operands exclude the value after one of `value_options` (-salt S).
// `value`: which part of the argument (sqlplus user/PASSWORD@db, the first
// operand). `count`: with an offset, so many arguments from there are
// secret (qpdf --encrypt USER OWNER).
inline constexpr unsigned char kEveryOperand = 255;
struct PositionalSecret {
  std::string_view tools;
  std::string_view trigger;
  unsigned char offset;
  std::string_view value_options = {};  // space-separated
  Value value = Value::kWhole;
  unsigned char count = 1;
};
inline constexpr PositionalSecret kPositionalSecrets[] = {
    {"redis-cli keydb-cli valkey-cli", "auth", kEveryOperand},  // also HELLO 3 AUTH USER PASSWORD
    {"openssl", "passwd", kEveryOperand, "-salt -in"},
    // tpm2_changeauth -c owner NEW_AUTH: the new auth value.
    {"tpm2_changeauth", "", 0, "-c -p -r -C --object-context --auth --private --parent-context"},
    {"mkpasswd", "", kEveryOperand, "-m -S -R --method --salt --rounds --password-fd"},
    {"sqlplus expdp impdp exp imp sqlldr dgmgrl clpplus", "", 0, {}, Value::kConnectString},
    {"sql", "", 0, "-cloudconfig", Value::kConnectString},  // SQLcl
    {"rman", "target", 0, {}, Value::kConnectString},
    {"rman", "catalog", 0, {}, Value::kConnectString},
    {"rman", "auxiliary", 0, {}, Value::kConnectString},
    {"composer poetry", "http-basic.", 2},
    {"composer", "bitbucket-oauth.", 2},
    {"composer", "github-oauth.", 1},
    {"composer", "gitlab-oauth.", 1},
    {"composer", "gitlab-token.", 1},
    {"composer", "bearer.", 1},
    {"poetry", "pypi-token.", 1},
    {"vault bao", "login", 0},
    {"cargo", "login", 0},
    {"cf", "auth", 2},          // cf auth USER PASSWORD
    {"netlify", "env:set", 2},  // netlify env:set NAME VALUE
    {"bw", "create", 2},        // bw create item ENCODED_JSON (the item, its password)
    {"bw", "edit", 3},          // bw edit item ID ENCODED_JSON
    {"mc", "set", 4},           // mc alias set NAME URL ACCESS_KEY SECRET_KEY
    {"bw", "unlock", 0, "--passwordenv --passwordfile --session"},
    {"bw", "login", 2},  // bw login EMAIL PASSWORD
    {"ngrok", "authtoken", 0},
    {"bws", "create", 2},  // bws secret create KEY VALUE PROJECT_ID
    {"ngrok", "add-authtoken", 0},
    {"ngrok", "add-api-key", 0},
    {"snyk", "auth", 0},
    {"wandb", "login", 0, "--host"},
    {"nuget", "setapikey", 0, "-source -Source -configfile -ConfigFile"},
    {"neo4j-admin neo4j", "set-initial-password", 0},
    {"rabbitmqctl", "add_user", 2},
    {"doveadm", "test", 2},   // doveadm auth test USER PASSWORD
    {"doveadm", "login", 2},  // doveadm auth login USER PASSWORD
    // Salt's execution modules: salt '*' user.chpass NAME PASSWORD,
    // shadow.set_password NAME PASSWORD (a hash, or with use_usermod a password).
    {"salt salt-call salt-ssh", "user.chpass", 2},
    {"salt salt-call salt-ssh", "shadow.set_password", 2},
    {"rabbitmqctl", "change_password", 2},
    {"grafana-cli grafana grafana-server", "reset-admin-password", 0, "--homepath --config"},
    {"mullvad", "login", 0},                          // mullvad account login ACCOUNT_NUMBER
    {"authelia", "hash-password", 0, "--config -c"},  // authelia hash-password PASSWORD
    {"bench", "set-admin-password", 0},               // Frappe's bench set-admin-password PASSWORD
    {"zkCli.sh zkCli zookeeper-shell", "digest", 0, {}, Value::kAfterColon},  // addauth digest u:p
    {"microk8s", "join", 0, {}, Value::kConnectString},  // join HOST:PORT/TOKEN
    {"vault bao", "unseal", 0},                          // vault operator unseal KEY
    {"keyctl", "add", 3},                                // keyctl add TYPE NAME DATA KEYRING
    {"ansible-vault", "encrypt_string", 0,
     "--name -n --vault-id --vault-password-file --output --encrypt-vault-id --stdin-name"},
    {"drush", "upwd", 2},  // drush upwd USER PASSWORD
    {"drush", "user:password", 2},
    {"drush", "user-password", 2},
    {"rclone", "obscure", 0},                       // rclone obscure PASSWORD
    {"rabbitmqctl", "authenticate_user", 2},        // authenticate_user USER PASSWORD
    {"hostapd_cli wpa_cli", "wps_pin", 2},          // wps_pin UUID|any PIN
    {"etcdctl", "add", 0, {}, Value::kAfterColon},  // etcdctl user add root:PASSWORD
    {"mc", "add", 3},                               // mc admin user add ALIAS USER SECRET
    {"travis", "encrypt", kEveryOperand},           // travis encrypt SECRET
    {kImpacketTargetTools, "", 0, kImpacketValueOptions, Value::kTarget},
    {kImpacketDomainTools, "", 0, kImpacketValueOptions, Value::kAfterColon},
    {"cf", "set-env", 3},            // cf set-env APP NAME VALUE
    {"b2", "authorize-account", 2},  // b2 authorize-account KEY_ID KEY
    {"b2", "authorize", 2},          // b2 account authorize KEY_ID KEY
    {"db2", "using", 0},             // db2 connect to D user U using PASSWORD
    {"chamber", "write", 3},         // chamber write SERVICE KEY VALUE
    {"emqx_ctl emqx", "admins", 3},  // admins add|passwd USER PASSWORD
    {"civo", "apikey", 3},           // civo apikey save|add NAME KEY
    {"samba-tool", "user", 3},       // samba-tool user add|create NAME PASSWORD
    {"berglas", "create", 2},        // berglas create sm://PROJECT/NAME VALUE
    {"sops", "set", 3},              // sops set FILE PATH VALUE
    {"cloudflared", "install", 0},   // cloudflared service install TOKEN
    {"replicate", "login", 0},       // replicate auth login TOKEN
    // Apprise's operands are service URLs whose host and path are the
    // tokens (slack://A/B/C, tgram://BOT_TOKEN/CHAT).
    {"apprise", "", kEveryOperand,
     "-b --body -t --title -c --config -n --notification-type -a --attach -g --tag -i "
     "--input-format -T --theme -P --plugin-path -S --storage-path"},
    {"qpdf", "--encrypt", 1, {}, Value::kWhole, 2},  // qpdf --encrypt USER OWNER BITS --
    {"pdftk", "user_pw", 0},                         // pdftk IN output OUT user_pw PW
    {"pdftk", "owner_pw", 0},
    {"pdftk", "input_pw", 0},
    {"ipmitool", "password", 2},  // ipmitool user set password ID PASSWORD
    {"hdbuserstore", "set", 4},   // hdbuserstore SET KEY HOST USER PASSWORD
    {"ipa", "passwd", 2},         // ipa passwd USER PASSWORD
    // kubeadm token create [TOKEN]
    {"kubeadm", "create", 0, "--ttl --description --groups --usages --config --kubeconfig"},
    {"sem semaphore-cli", "connect", 2},  // sem connect ORG.semaphoreci.com TOKEN
    {"consul", "set-agent-token", 2},     // consul acl set-agent-token TYPE TOKEN
    {"glab", "update", 2},                // glab variable update NAME VALUE
    {"net", "user", 2},                   // Windows' net user NAME PASSWORD
    {"net", "\\\\", 1},                // net use [DEVICE] \\SERVER\SHARE PASSWORD (a share's name)
    {"net", "add", 2},                 // Samba's net rpc user add NAME PASSWORD
    {"net", "password", 2},            // Samba's net rpc password USER PASSWORD
    {"salt-call salt", "sdb.set", 2},  // salt-call sdb.set sdb://PROFILE/KEY VALUE
    {"cachix", "authtoken", 0},        // cachix authtoken TOKEN
    {"shodan", "init", 0},             // shodan init API_KEY
    {"steamcmd", "+login", 2},         // steamcmd +login USER PASSWORD [GUARD_CODE]
    {"chef-server-ctl", "user-create", 5},  // user-create USER FIRST LAST EMAIL PASSWORD
    {"chef-server-ctl", "password", 2},     // password USER PASSWORD
    {"pocketbase", "upsert", 2},            // pocketbase superuser upsert EMAIL PASSWORD
    {"pocketbase", "create", 2},            // ... superuser create EMAIL PASSWORD
    {"attic", "login", 3},                  // attic login NAME URL TOKEN
};

// ---- Settings given as NAME VALUE (rule 9): once an argument equal to
// `after` was seen ("" from the start), the first argument after it that is
// not an option (`every`: each such argument with '.' or '_', as setting
// names have and values such as wpa-psk lack, or that is a secret word)
// makes the next argument secret, unless that is an option, when it is a
// secret name. `operands_before`: the name is so many non-options later
// (crudini --set FILE SECTION NAME V).
struct SettingNames {
  std::string_view tools;  // space-separated names; "*" is every tool
  std::string_view after;
  bool every;
  unsigned char operands_before = 0;
};
inline constexpr SettingNames kSettingNames[] = {
    {"*", "set", false},         // aws configure set aws_secret_access_key V
    {"*", "setenv", false},      // csh's setenv API_TOKEN V, launchctl setenv
    {"*", "setx", false},        // Windows' setx API_TOKEN V
    {"git", "config", false},    // git config --global user.password V
    {"pdm", "config", false},    // pdm config pypi.private.password V
    {"nmcli", "", true},         // nmcli con mod N ipv4.method auto wifi-sec.psk V
    {"rclone", "config", true},  // rclone config create R s3 access_key_id A secret_access_key V
    {"jq gojq jaq", "--arg", false},                      // jq --arg token V '...'
    {"jq gojq jaq", "--argjson", false},                  // jq --argjson auth '{"password": ...}'
    {"etcdctl consul", "put", false},                     // etcdctl put /config/db_password V
    {"zkCli.sh zkCli zookeeper-shell", "create", false},  // create /app/password V
    {"toml", "set", true},                                // toml set FILE db.password V
    {"dvc", "modify", true},       // dvc remote modify [--local] REMOTE secret_access_key V
    {"dasel", "put", true},        // dasel put string -f FILE .auth.token V
    {"tccli", "set", true},        // configure set secretId ID secretKey V
    {"mix", "hex.config", false},  // mix hex.config api_key V
    {"llm", "-o", false},          // llm -o api_key V 'prompt' (a model's option)
    {"llm", "--option", false},
    // nix --option access-tokens github.com=V
    {"nix nix-store nix-build nix-shell nix-env nix-instantiate", "--option", false},
    {"just", "--set", false},        // just --set token V deploy
    {"crudini", "--set", false, 2},  // crudini --set FILE SECTION admin_token V
    {"lxc incus", "set", true},      // lxc config set INSTANCE environment.API_KEY V
};

// ---- Secret stores: once an argument equal to `after` (any case) was seen,
// the value of every NAME=VALUE argument (or of an option's attached
// --from-literal=NAME=VALUE) is secret, whatever the name but for one whose
// last word is in kNonSecretLastWords (db_user=app): what is put into a
// secret store is a secret (fly secrets set STRIPE_KEY=V).
struct SecretStore {
  std::string_view tools;  // space-separated names
  std::string_view after;
};
// An option of a store whose NAME=VALUE gives a file to read the value
// from (kubectl create secret generic s --from-file=password=./pw.txt).
inline constexpr std::string_view kStoreFileOptions[] = {"--from-file"};
inline constexpr SecretStore kSecretStores[] = {
    {"fly flyctl doppler infisical", "secrets"},  // fly secrets set NAME=V
    {"kubectl oc", "generic"},  // kubectl create secret generic s --from-literal=NAME=V
    {"vault bao", "put"},       // vault kv put secret/app NAME=V
    {"vault bao", "patch"},     // vault kv patch secret/app NAME=V
    {"heroku dokku", "config:set"},
    {"railway", "variables"},  // railway variables --set NAME=V
    {"travis", "encrypt"},     // travis encrypt NAME=V
    {"supabase", "secrets"},   // supabase secrets set NAME=V
    {"modal", "secret"},       // modal secret create NAME KEY=V
    {"nomad", "var"},          // nomad var put PATH KEY=V
};

// ---- Counted operands: with the one-letter flag `flag` among a tool's
// options (0: always), its operand number `operand` is secret, one fewer with
// `fewer_flag` (htpasswd -b FILE USER PASSWORD, htpasswd -nb USER
// PASSWORD); the value after one of `value_options` is no operand.
struct CountedOperand {
  std::string_view tools;
  char flag;
  unsigned char operand;  // 1-based
  char fewer_flag;        // 0: none
  std::string_view value_options;
  unsigned char also_operand = 0;  // a second secret operand, 1-based; 0: none
};
inline constexpr CountedOperand kCountedOperands[] = {
    {"htpasswd", 'b', 3, 'n', "-C -r"},
    {"mosquitto_passwd", 'b', 3, 0, ""},  // mosquitto_passwd -b FILE USER PASSWORD
    {"wpa_passphrase", 0, 2, 0, ""},      // wpa_passphrase SSID PASSPHRASE
    // kerbrute passwordspray [-d DOMAIN] USERS PASSWORD
    {"kerbrute", 0, 3, 0, "-d --domain --dc -o --output -t --threads --delay"},
    {"isql", 0, 3, 0, ""},  // unixODBC's isql DSN USER PASSWORD
    // radtest USER PASSWORD SERVER NAS_PORT SECRET: a RADIUS client's shared secret too.
    {"radtest", 0, 2, 0, "-t -P", 5},
    {"radclient", 0, 3, 0, "-c -d -D -f -i -n -p -P -r -S -t"},  // radclient SERVER auth SECRET
};

// ---- Passwords marked by a leading character: after an argument equal to
// `after` in any case, an argument starting with one of `marks` is secret
// past it (redis-cli ACL SETUSER alice on >PASSWORD: '>' adds a password,
// '<' removes one).
struct MarkedSecret {
  std::string_view tools;
  std::string_view after;
  std::string_view marks;
};
inline constexpr MarkedSecret kMarkedSecrets[] = {
    {"redis-cli", "setuser", "<>"},
};

// ---- Rule 14: calls in code that take a credential as a positional
// argument: of the arguments `first` to `last` (counted from 1), each that
// is a quoted string is secret (smtplib's s.login('me', 'PW')). A name is
// compared with the last part of a dotted one (requests.auth.HTTPBasicAuth),
// a dotted name with as many last parts (jwt.encode), in any case.
struct SecretCall {
  std::string_view name;
  unsigned char first;
  unsigned char last;
  bool lone = false;  // and the argument when it is the only one (a token)
};
inline constexpr SecretCall kSecretCalls[] = {
    // W&B's wandb.login(KEY) (before login's row, which would match first).
    {"wandb.login", 1, 1},
    // smtplib, ftplib, imaplib, docker's client: login(user, password);
    // alone, a token (huggingface_hub's login(TOKEN), discord's).
    {"login", 2, 2, true},
    // requests, httpx, aiohttp: HTTPBasicAuth(user, password)
    {"HTTPBasicAuth", 2, 2},
    {"HTTPDigestAuth", 2, 2},
    {"HTTPProxyAuth", 2, 2},
    {"BasicAuth", 2, 2},
    {"DigestAuth", 2, 2},
    // PHP: new PDO(dsn, user, password), mysqli(host, user, password)
    {"PDO", 3, 3},
    {"mysqli", 3, 3},
    {"mysqli_connect", 3, 3},
    // ftplib.FTP(host, user, passwd)
    {"FTP", 3, 3},
    {"FTP_TLS", 3, 3},
    // poplib: pass_(password)
    {"pass_", 1, 1},
    // MySQLdb and pymysql (host, user, password), cx_Oracle (user,
    // password, dsn), paramiko (host, port, user, password): a user is
    // hidden with them.
    // (host, user, password, db) where the module is named, Oracle's (user,
    // password, dsn); elsewhere all three.
    {"pymysql.connect", 3, 3},
    {"MySQLdb.connect", 3, 3},
    {"cx_Oracle.connect", 2, 2},
    {"oracledb.connect", 2, 2},
    {"connect", 2, 4},
    // Signing keys: PyJWT's jwt.encode(payload, KEY), jwt.decode(token,
    // KEY), jsonwebtoken's sign(payload, KEY) and verify, hmac.new(KEY),
    // Node's crypto.createHmac(algorithm, KEY).
    {"jwt.encode", 2, 2},
    {"jwt.decode", 2, 2},
    {"sign", 2, 2},
    {"jwt.verify", 2, 2},
    {"hmac.new", 1, 1},
    {"createHmac", 2, 2},
    // MySQL's PASSWORD('x'); MongoDB's db.changeUserPassword(user, PASSWORD).
    {"PASSWORD", 1, 1},
    {"changeUserPassword", 2, 2},
    // MongoDB's db.auth(user, password); alone, Redis's password (ioredis'
    // redis.auth(PW), Lua's redis:auth(PW)).
    {"auth", 2, 2, true},
    // Ruby's Net::SMTP.start(host, port, helo, user, PASSWORD, authtype).
    {"SMTP.start", 5, 5},
    // Ruby's Net::HTTP and Faraday, Rust's reqwest: basic_auth(user,
    // password); reqwest's bearer_auth(TOKEN).
    {"basic_auth", 2, 2},
    {"bearer_auth", 1, 1},
    // LDAP binds: PHP's ldap_bind(conn, dn, password), python-ldap's
    // simple_bind_s(dn, password).
    {"ldap_bind", 3, 3},
    {"simple_bind_s", 2, 2},
    {"simple_bind", 2, 2},
    // keyring.set_password(service, user, PASSWORD); Django's
    // user.set_password(PASSWORD).
    {"keyring.set_password", 3, 3},
    // urllib's HTTPPasswordMgr.add_password(realm, uri, user, PASSWORD).
    {"add_password", 4, 4},
    {"set_password", 1, 1},
    // Go's req.SetBasicAuth(user, password); .NET's NetworkCredential,
    // Apache HttpClient's UsernamePasswordCredentials, Java's
    // PasswordAuthentication, RabbitMQ's pika.PlainCredentials: (user, password).
    {"SetBasicAuth", 2, 2},
    {"NetworkCredential", 2, 2},
    {"UsernamePasswordCredentials", 2, 2},
    {"PasswordAuthentication", 2, 2},
    {"PlainCredentials", 2, 2},
    // JDBC's DriverManager.getConnection(url, user, password); PHP's
    // mysql_connect(host, user, password), ftp_login(conn, user, password),
    // ssh2_auth_password(session, user, password), oci_connect(user, password).
    {"getConnection", 3, 3},
    // Groovy's Sql.newInstance(url, user, password, driver); R's
    // httr::authenticate(user, password) and MongoDB's db.authenticate.
    {"Sql.newInstance", 3, 3},
    {"authenticate", 2, 2},
    {"mysql_connect", 3, 3},
    {"ftp_login", 3, 3},
    {"ssh2_auth_password", 3, 3},
    {"oci_connect", 2, 2},
    // A password to hash or check: PHP's password_hash and password_verify,
    // werkzeug's generate_password_hash and check_password_hash, bcrypt's
    // hashpw, Django's make_password, crypt.crypt.
    {"password_hash", 1, 1},
    {"password_verify", 1, 1},
    {"generate_password_hash", 1, 1},
    {"check_password_hash", 2, 2},
    {"hashpw", 1, 1},
    {"make_password", 1, 1},
    {"crypt", 1, 1},  // also PHP's and Perl's crypt(PASSWORD, salt)
    // bcrypt's and bcryptjs' hash(PW, rounds), compare(PW, hash), Python's
    // checkpw(PW, hash), Ruby's BCrypt::Password.create(PW), Bun's
    // Bun.password.hash(PW) and verify(PW, hash), node-argon2's hash(PW) and
    // verify(hash, PW) (passlib's verify(PW, hash): both), passlib's
    // handlers' hash(PW), key derivations' scrypt(PW, salt) and pbkdf2.
    {"bcrypt.hash", 1, 1},
    {"bcrypt.hashSync", 1, 1},
    {"bcrypt.compare", 1, 1},
    {"bcrypt.compareSync", 1, 1},
    {"checkpw", 1, 1},
    {"Password.create", 1, 1},
    {"password.hash", 1, 1},
    {"password.hashSync", 1, 1},
    {"password.verify", 1, 1},
    {"password.verifySync", 1, 1},
    {"argon2.hash", 1, 1},
    {"argon2.verify", 1, 2},
    {"sha512_crypt.hash", 1, 1},
    {"sha256_crypt.hash", 1, 1},
    {"md5_crypt.hash", 1, 1},
    {"pbkdf2_sha256.hash", 1, 1},
    {"pbkdf2_sha512.hash", 1, 1},
    {"scrypt", 1, 1},
    {"scryptSync", 1, 1},
    {"pbkdf2", 1, 1},
    {"pbkdf2Sync", 1, 1},
    // Django's create_user(username, email, PASSWORD) and create_superuser.
    {"create_user", 3, 3},
    {"create_superuser", 3, 3},
    // Ruby's Net::FTP.new(host, user, PASSWORD), PHP's imap_open(mailbox,
    // user, PASSWORD), Cassandra's PlainTextAuthProvider(user, PASSWORD).
    {"FTP.new", 3, 3},
    {"imap_open", 3, 3},
    {"PlainTextAuthProvider", 2, 2},
    // Keys: Node's crypto.createCipheriv(algorithm, KEY, iv), Fernet(KEY),
    // PyCryptodome's AES.new(KEY, mode), PHP's openssl_encrypt(data,
    // method, KEY) and hash_hmac(algorithm, data, KEY), Ruby's
    // OpenSSL::HMAC.hexdigest(digest, KEY, data), Python's hmac.digest(KEY, ...).
    {"createCipheriv", 2, 2},
    {"createDecipheriv", 2, 2},
    {"Fernet", 1, 1},
    {"AES.new", 1, 1},
    {"openssl_encrypt", 3, 3},
    {"openssl_decrypt", 3, 3},
    {"hash_hmac", 3, 3},
    {"HMAC.hexdigest", 2, 2},
    {"HMAC.digest", 2, 2},
    {"HMAC.base64digest", 2, 2},
    {"hmac.digest", 1, 1},
    // API clients given a key with no prefix that rule 7 knows: SendGrid's
    // and others' setApiKey(KEY), Cohere's cohere.Client(KEY), Slack's
    // WebClient(TOKEN), python-telegram-bot's telegram.Bot(TOKEN) and
    // builder().token(TOKEN), PyGithub's Github(TOKEN), and a client made of
    // an id and a secret (Twilio's Client(SID, TOKEN), hvac's Client(URL,
    // TOKEN)).
    {"setApiKey", 1, 1},
    {"cohere.Client", 1, 1},
    {"cohere.ClientV2", 1, 1},
    {"WebClient", 1, 1},
    {"AsyncWebClient", 1, 1},
    {"telegram.Bot", 1, 1},
    {"token", 1, 1},
    {"Github", 1, 1},
    {"WithAuthToken", 1, 1},  // go-github's github.NewClient(nil).WithAuthToken(TOKEN)
    {"Client", 2, 2},
    {"Stripe", 1, 1},  // Node's new Stripe(KEY)
    // Supabase's create_client(URL, KEY); tweepy's OAuthHandler(KEY,
    // SECRET) and set_access_token(TOKEN, SECRET); hashlib's
    // pbkdf2_hmac(algorithm, PASSWORD, salt, n).
    {"create_client", 2, 2},
    {"OAuthHandler", 2, 2},
    {"set_access_token", 1, 2},
    {"pbkdf2_hmac", 2, 2},
    // Node's new Twilio(SID, TOKEN); Basic auth's btoa("user:PASSWORD");
    // Java's setters: HikariCP's, RabbitMQ's ConnectionFactory's
    // setPassword(PASSWORD).
    {"Twilio", 2, 2},
    {"btoa", 1, 1},
    // ... and its other spellings: Python's base64.b64encode(b"user:PW"),
    // Perl's encode_base64, PHP's base64_encode, Ruby's Base64.strict_encode64.
    {"b64encode", 1, 1},
    {"encode_base64", 1, 1},
    {"base64_encode", 1, 1},
    {"strict_encode64", 1, 1},
    // PowerShell's [Convert]::ToBase64String([Text.Encoding]::ASCII.GetBytes("user:PW")).
    {"GetBytes", 1, 1},
    {"encode64", 1, 1},
    {"setPassword", 1, 1},
    // ldap3's and kombu's Connection(server, user, password).
    {"Connection", 3, 3},
    {"Credentials", 4, 4},  // sbt's Credentials(realm, host, user, PASSWORD)
    // Azure's identity: ClientSecretCredential(tenant, client, SECRET),
    // UsernamePasswordCredential(client, user, PASSWORD).
    {"ClientSecretCredential", 3, 3},
    // Ruby's AWS SDK: Aws::Credentials.new(KEY_ID, SECRET, SESSION_TOKEN);
    // pysmb's SMBConnection(user, PASSWORD, client, server).
    {"Credentials.new", 2, 3},
    {"SMBConnection", 2, 2},
    // ClickHouse's table functions: s3(URL, KEY_ID, SECRET, ...), gcs(URL,
    // KEY, SECRET), s3Cluster(CLUSTER, URL, KEY_ID, SECRET).
    {"s3", 3, 3},
    {"gcs", 3, 3},
    {"s3Cluster", 4, 4},
    {"UsernamePasswordCredential", 3, 3},
};

// Rule 14: calls that open a file, and that write one, by the last part of
// a dotted name: what is written to a credential file (kCredentialFiles or
// a secret name: open('token.txt', 'w').write(S), File.write('.netrc', S),
// fs.writeFileSync('.pgpass', S), Path('~/.netrc').write_text(S)) is secret.
inline constexpr std::string_view kFileOpenCalls[] = {"open", "fopen", "Path", "joinpath",
                                                      "createWriteStream"};
inline constexpr std::string_view kFileWriteCalls[] = {
    "write",     "write_text", "write_bytes",    "writelines",        "writeFileSync",
    "writeFile", "appendFile", "appendFileSync", "file_put_contents", "fwrite",
    "fputs",     "puts",       "binwrite"};

// Rule 14: calls whose first string argument names a secret or asks for one
// and holds none (a module, a variable, a file, a prompt): a call of theirs
// assigned to a secret name shows its only string (jwt =
// require('jsonwebtoken'), token = os.getenv('API_TOKEN'), password =
// getpass('Password: ')); a second is still secret (os.getenv('T', 'PW')).
inline constexpr std::string_view kNamingCalls[] = {
    "require",   "import", "getenv",        "get",          "fetch",       "getpass",
    "input",     "prompt", "open",          "readFileSync", "read_secret", "get_secret",
    "getSecret", "lookup", "get_parameter", "getParameter",
};

// Rule 14: names whose list holds command lines, one a string (aws ssm
// send-command --parameters 'commands=["cd /srv", "curl ..."]', a CI job's
// "script").
inline constexpr std::string_view kCommandListNames[] = {"commands", "script"};

// Rule 14: calls whose string arguments are a command's argv, its name
// first (Ruby's system('curl', '-u', ...), Go's exec.Command, Java's
// ProcessBuilder, Open3.capture2), as a list's are.
inline constexpr std::string_view kArgvCalls[] = {
    "system", "exec",     "spawn",     "Command",  "ProcessBuilder", "execl",
    "execlp", "capture2", "capture2e", "capture3", "popen3",
};
// Rule 14: calls whose first string is a command line a shell runs
// (Python's subprocess.run("curl ...", shell=True) and os.popen, Node's
// execSync, PHP's shell_exec and passthru); a kArgvCalls' first string
// with white space is one too (Ruby's system("curl -u ...")).
inline constexpr std::string_view kShellStringCalls[] = {
    "run",   "call",     "check_call", "check_output", "Popen",     "getoutput",
    "popen", "execSync", "shell_exec", "passthru",     "proc_open", "getstatusoutput",
};

// ---- Rule 15: a prompt asking for a secret, in any case, anywhere in an
// expect pattern (expect "Password:", c.expect('Enter passphrase')).
inline constexpr std::string_view kSecretPrompts[] = {"assword", "passphrase", "passcode", "secret",
                                                      "token"};
// The commands and methods that wait for a prompt (telnetlib's read_until).
inline constexpr std::string_view kPromptWaits[] = {"expect", "expect_exact", "read_until"};
// The commands and methods that answer the prompt expected last.
inline constexpr std::string_view kPromptAnswers[] = {"send", "sendline", "write"};

// ---- Token shapes, found anywhere at the start of a word.
enum class Body : unsigned char {
  kAlnum,  // A-Z a-z 0-9
  kAlnumUnderscore,
  kUpperAlnum,    // A-Z 0-9
  kBase64Url,     // A-Z a-z 0-9 - _
  kBase64UrlDot,  // A-Z a-z 0-9 - _ .
  kAlnumDash,     // A-Z a-z 0-9 -
};

struct TokenShape {
  std::string_view prefix;
  Body body;
  unsigned char min_body;  // characters after the prefix
  std::string_view issuer;
};

inline constexpr TokenShape kTokenShapes[] = {
    {"AKIA", Body::kUpperAlnum, 16, "AWS access key id"},
    {"ASIA", Body::kUpperAlnum, 16, "AWS temporary access key id"},
    {"AGPA", Body::kUpperAlnum, 16, "AWS group id"},
    {"AIDA", Body::kUpperAlnum, 16, "AWS user id"},
    {"AROA", Body::kUpperAlnum, 16, "AWS role id"},
    {"AIPA", Body::kUpperAlnum, 16, "AWS instance profile id"},
    {"ANPA", Body::kUpperAlnum, 16, "AWS managed policy id"},
    {"ANVA", Body::kUpperAlnum, 16, "AWS policy version id"},
    {"ABIA", Body::kUpperAlnum, 16, "AWS STS bearer token id"},
    {"ACCA", Body::kUpperAlnum, 16, "AWS context-specific credential id"},
    {"ghp_", Body::kAlnum, 30, "GitHub personal access token"},
    {"gho_", Body::kAlnum, 30, "GitHub OAuth token"},
    {"ghu_", Body::kAlnum, 30, "GitHub user-to-server token"},
    {"ghs_", Body::kAlnum, 30, "GitHub server-to-server token"},
    {"ghr_", Body::kAlnum, 30, "GitHub refresh token"},
    {"github_pat_", Body::kAlnumUnderscore, 22, "GitHub fine-grained token"},
    {"glpat-", Body::kBase64Url, 20, "GitLab personal access token"},
    {"gldt-", Body::kBase64Url, 20, "GitLab deploy token"},
    {"glrt-", Body::kBase64Url, 20, "GitLab runner token"},
    {"glptt-", Body::kBase64Url, 20, "GitLab pipeline trigger token"},
    {"xoxa-", Body::kAlnumDash, 10, "Slack app token"},
    {"xoxb-", Body::kAlnumDash, 10, "Slack bot token"},
    {"xoxp-", Body::kAlnumDash, 10, "Slack user token"},
    {"xoxr-", Body::kAlnumDash, 10, "Slack refresh token"},
    {"xoxs-", Body::kAlnumDash, 10, "Slack session token"},
    {"xoxe-", Body::kAlnumDash, 10, "Slack config token"},
    {"xapp-", Body::kAlnumDash, 10, "Slack app-level token"},
    {"AIza", Body::kBase64Url, 30, "Google API key"},
    {"ya29.", Body::kBase64UrlDot, 20, "Google OAuth access token"},
    {"sk-", Body::kBase64Url, 20, "OpenAI, Anthropic and similar secret keys"},
    {"sk_live_", Body::kAlnum, 16, "Stripe live secret key"},
    {"sk_test_", Body::kAlnum, 16, "Stripe test secret key"},
    {"rk_live_", Body::kAlnum, 16, "Stripe live restricted key"},
    {"rk_test_", Body::kAlnum, 16, "Stripe test restricted key"},
    {"whsec_", Body::kAlnum, 16, "Stripe webhook signing secret"},
    {"npm_", Body::kAlnum, 30, "npm access token"},
    {"pypi-", Body::kBase64Url, 50, "PyPI API token"},
    {"hf_", Body::kAlnum, 30, "Hugging Face token"},
    {"SG.", Body::kBase64UrlDot, 40, "SendGrid API key"},
    {"hvs.", Body::kBase64Url, 20, "Vault service token"},
    {"hvb.", Body::kBase64Url, 20, "Vault batch token"},
    {"hvr.", Body::kBase64Url, 20, "Vault recovery token"},
    {"dop_v1_", Body::kAlnum, 32, "DigitalOcean personal access token"},
    {"doo_v1_", Body::kAlnum, 32, "DigitalOcean OAuth token"},
    {"dor_v1_", Body::kAlnum, 32, "DigitalOcean refresh token"},
    {"cio", Body::kAlnum, 32, "crates.io (cargo) API token"},
    {"shpat_", Body::kAlnum, 32, "Shopify access token"},
    {"shpss_", Body::kAlnum, 32, "Shopify shared secret"},
    {"glsa_", Body::kAlnumUnderscore, 32, "Grafana service account token"},
    {"glc_", Body::kBase64Url, 32, "Grafana Cloud token"},
    {"lin_api_", Body::kAlnum, 32, "Linear API key"},
    {"ATATT", Body::kBase64Url, 32, "Atlassian API token"},
    {"dp.pt.", Body::kAlnum, 32, "Doppler token"},
    {"sq0atp-", Body::kBase64Url, 22, "Square access token"},
    {"sq0csp-", Body::kBase64Url, 22, "Square OAuth secret"},
    {"key-", Body::kAlnum, 32, "Mailgun API key"},
    {"PMAK-", Body::kBase64Url, 40, "Postman API key"},
    {"dapi", Body::kAlnum, 32, "Databricks token"},
    {"pul-", Body::kAlnum, 40, "Pulumi access token"},
    {"AGE-SECRET-KEY-1", Body::kUpperAlnum, 50, "age secret key"},
    {"dckr_pat_", Body::kBase64Url, 20, "Docker Hub personal access token"},
    {"sntrys_", Body::kBase64Url, 40, "Sentry organization token"},
    {"sntryu_", Body::kAlnum, 40, "Sentry user auth token"},
    {"gsk_", Body::kAlnum, 40, "Groq API key"},
    {"r8_", Body::kAlnum, 30, "Replicate API token"},
    {"xai-", Body::kAlnum, 40, "xAI API key"},
    {"tvly-", Body::kBase64Url, 20, "Tavily API key"},
    {"pplx-", Body::kAlnum, 40, "Perplexity API key"},
    {"nvapi-", Body::kBase64Url, 40, "NVIDIA API key"},
    {"pcsk_", Body::kBase64Url, 40, "Pinecone API key"},
    {"pscale_tkn_", Body::kBase64Url, 30, "PlanetScale service token"},
    {"pscale_pw_", Body::kBase64Url, 30, "PlanetScale password"},
    {"ops_", Body::kBase64Url, 80, "1Password service account token"},
    {"tskey-", Body::kAlnumDash, 20, "Tailscale auth or API key"},
    {"nfp_", Body::kAlnum, 30, "Netlify personal access token"},
    {"CFPAT-", Body::kBase64Url, 40, "Contentful personal access token"},
    {"rubygems_", Body::kAlnum, 40, "RubyGems API key"},
    {"xkeysib-", Body::kAlnumDash, 60, "Brevo API key"},
    {"lsv2_pt_", Body::kAlnumUnderscore, 30, "LangSmith personal access token"},
    {"lsv2_sk_", Body::kAlnumUnderscore, 30, "LangSmith service key"},
    {"NRAK-", Body::kUpperAlnum, 27, "New Relic user API key"},
    {"AKCp", Body::kAlnum, 60, "JFrog API key"},
    {"figd_", Body::kBase64Url, 30, "Figma personal access token"},
    {"shpca_", Body::kAlnum, 32, "Shopify custom app token"},
    {"shppa_", Body::kAlnum, 32, "Shopify private app token"},
    {"gloas-", Body::kBase64Url, 40, "GitLab OAuth application secret"},
    {"glcbt-", Body::kBase64Url, 20, "GitLab CI/CD job token"},
    {"glft-", Body::kBase64Url, 20, "GitLab feed token"},
    {"glimt-", Body::kBase64Url, 25, "GitLab incoming mail token"},
    {"glagent-", Body::kBase64Url, 50, "GitLab agent token"},
    {"glsoat-", Body::kBase64Url, 20, "GitLab SCIM OAuth token"},
    {"glffct-", Body::kBase64Url, 20, "GitLab feature flags client token"},
    {"dckr_oat_", Body::kBase64Url, 20, "Docker Hub organization access token"},
    {"ntn_", Body::kAlnum, 40, "Notion integration token"},
    {"secret_", Body::kAlnum, 40, "Notion integration token (before 2024)"},
    {"pat-na1-", Body::kAlnumDash, 36, "HubSpot private app token"},
    {"pat-eu1-", Body::kAlnumDash, 36, "HubSpot private app token"},
    {"oy2", Body::kAlnum, 43, "NuGet API key"},
    {"tfp_", Body::kBase64UrlDot, 40, "Typeform personal access token"},
    {"dt0c01.", Body::kBase64UrlDot, 80, "Dynatrace API token"},
    {"sbp_", Body::kAlnum, 40, "Supabase personal access token"},
    {"sb_secret_", Body::kBase64Url, 20, "Supabase secret key"},
    {"phx_", Body::kAlnumUnderscore, 40, "PostHog personal API key"},
    {"ATBB", Body::kAlnum, 32, "Bitbucket app password"},
    {"LTAI", Body::kAlnum, 16, "Alibaba Cloud AccessKey ID"},
    {"AKID", Body::kAlnum, 32, "Tencent Cloud SecretId"},
    {"HRKU-", Body::kBase64Url, 40, "Heroku API key"},
    {"rnd_", Body::kAlnum, 24, "Render API key"},
    {"dp.st.", Body::kBase64UrlDot, 40, "Doppler service token"},
    {"dp.ct.", Body::kAlnum, 40, "Doppler CLI token"},
    {"dp.sa.", Body::kAlnum, 40, "Doppler service account token"},
    {"dp.scim.", Body::kAlnum, 40, "Doppler SCIM token"},
    {"dp.audit.", Body::kAlnum, 40, "Doppler audit token"},
    {"fo1_", Body::kBase64Url, 40, "Fly.io OAuth token"},
    {"CLOJARS_", Body::kAlnum, 60, "Clojars deploy token"},
    {"shippo_live_", Body::kAlnum, 40, "Shippo live API token"},
    {"shippo_test_", Body::kAlnum, 40, "Shippo test API token"},
    {"pnu_", Body::kAlnum, 36, "Prefect API key"},
    {"rdme_", Body::kAlnum, 70, "ReadMe API key"},
    {"duffel_live_", Body::kBase64Url, 43, "Duffel live access token"},
    {"duffel_test_", Body::kBase64Url, 43, "Duffel test access token"},
    {"EZAK", Body::kAlnum, 54, "EasyPost API key"},
    {"EZTK", Body::kAlnum, 54, "EasyPost test API key"},
    {"FLWSECK-", Body::kAlnumDash, 32, "Flutterwave secret key"},
    {"FLWSECK_TEST-", Body::kAlnumDash, 32, "Flutterwave test secret key"},
    {"ico-", Body::kAlnum, 32, "Infracost API key"},
    {"sha256~", Body::kBase64Url, 43, "OpenShift OAuth access token"},
    {"sk.eyJ", Body::kBase64UrlDot, 40, "Mapbox secret access token"},
    {"sgp_", Body::kAlnumUnderscore, 40, "Sourcegraph access token"},
    {"bkua_", Body::kAlnum, 40, "Buildkite API access token"},
    {"CCIPAT_", Body::kAlnumUnderscore, 40, "CircleCI personal API token"},
    {"NRII-", Body::kBase64Url, 32, "New Relic insert key"},
    {"access-production-", Body::kAlnumDash, 36, "Plaid access token"},
    {"access-development-", Body::kAlnumDash, 36, "Plaid access token"},
    {"access-sandbox-", Body::kAlnumDash, 36, "Plaid sandbox access token"},
    {"sl.", Body::kBase64UrlDot, 100, "Dropbox short-lived access token"},
};

}  // namespace redact_rules

#endif  // AGT_DENY_SHIM_REDACT_RULES_H_
