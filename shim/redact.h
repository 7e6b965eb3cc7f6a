// Finds the secret parts of the arguments a denied command was given, so the
// record can replace each with "[REDACTED]" before anything is written.
//
// What counts as secret is the table in redact_rules.h; the man page's
// REDACTION section names the rules below and lists the table's rows.
//  1. Headers: "Name: value" at the start of an argument, after '=' or a
//     newline (-H, --header=, git -c http.extraHeader=...), when Name is a
//     credential header or a secret name: the value. A line may start as
//     a YAML list's item ("- "), and a YAML pair's value follows its name
//     ("- name: DB_PASSWORD", then "value: x": rule 10's pairs). A config
//     file's line "NAME = value" ('=' between blanks) too, unless the value
//     is code's (quoted, a list, a call: password = getpass()).
//  2. Tool options (kToolOptions): per tool, which options take a secret
//     value, in which forms (attached, separate, bundled after one-letter
//     flags) and which part of it (whole, after ':' as in user:pass, ...);
//     positional secrets (kPositionalSecrets: vault login TOKEN, every
//     operand after redis-cli AUTH), marked ones (kMarkedSecrets: ACL
//     SETUSER u >PASSWORD) and what is put into a secret store whatever its
//     name (kSecretStores: fly secrets set STRIPE_KEY=V).
//  3. Secret options: any other option, --name or -name, whose name is
//     secret (IsSecretName): the value in --name=value, or the whole next
//     argument.
//  4. URLs: userinfo (scheme://user:pass@host and, without a scheme,
//     user:pass@host at the start of a word), and capability paths (after a
//     webhooks segment, or on a hooks.* host).
//  5. Assignments NAME=value with a secret NAME: at the start of an argument
//     (or after -D / -P style one-letter prefixes, or as an option's attached
//     value: --from-literal=password=x y) the rest of it, or in a
//     shell's command string (kShells, after -c) its shell word; after
//     '?', '&', '#', ';', ':', '=', ',', '{', '(', '[', white space or a
//     written-out \n (printf's) up to '&', '#', ',', white
//     space or a quote (query parameters, connection strings, -var, --set),
//     a value that opens with a quote ('x y', "x y", $'x y') to its close.
//  6. Authorization schemes in free text: "Bearer X" / "Basic X", X at least
//     8 token characters.
//  7. Token shapes at the start of a word (kTokenShapes), JSON Web Tokens and
//     PEM private key blocks.
//  8. Keywords: a bare argument such as "password" makes the next secret.
//  9. Settings (kSettingNames): the first non-option argument after "set"
//     (git: after "config"; nmcli and rclone config: each one) with a secret
//     name makes the next non-option argument secret.
// 10. Quoted members: "name": value with a secret name (JSON, Python dicts),
//     and a pair's value after its name ({"name": "DB_PASSWORD", "value":
//     "x"}, ParameterKey=DbPassword,ParameterValue=x: kPairNames).
// 11. Command lines: an argument with white space may be a command line
//     (sh -c "curl -u me:pw x", ssh host "...", su -c "..."). It is split
//     into shell words (shell_words.h), and each simple command's arguments
//     go through rules 1-10 and 12-16 as that command's own (its tool rows), the name
//     found past assignments, wrappers and keywords (kCommandPrefixes:
//     sudo, env, if, ...). Unless the argument follows -c (or -lc, ...) or
//     an option of kCommandStringOptions (gcloud compute ssh --command), or
//     a tool row names the command, rules 8 and 9 are off for it: such text
//     may be prose. A word that is one quoted string (or single-quoted
//     strings joined by '\'') is taken without its quotes, and a quoted
//     command line inside is split in turn (its \" quotes inside "...",
//     its '\'' inside joined ones: shell_words::Inside): without
//     recursion, one level of static state per quote taken off (at most
//     kMaxCommandDepth). So is an assignment's or option's quoted value
//     (GIT_SSH_COMMAND="sshpass -p X ssh", --rsh='...'); an unquoted one
//     that names a command a prefix's word would is that command
//     (ssh -o "ProxyCommand=sshpass -p X ssh j"). A record splits at most kMaxCommands commands
//     (a word looked up after a prefix, or an assignment's value where a name would be, counts as
//     one); from the first beyond, the rest of the argument is redacted (and so is every later
//     argument from its first command on). What is fed to a command that reads a secret on its
//     standard input (kStdinSecretOptions, kToolStdinSecretOptions, kStdinSecretCommands) is
//     secret: an echo or printf's arguments piped into it, its <<< word (echo X | docker login
//     --password-stdin). So is what an echo or printf writes to a credential file (> FILE, | tee
//     FILE: a secret name such as token, or kCredentialFiles).
// 12. SQL passwords: the inside of the quoted string after IDENTIFIED BY
//     (IDENTIFIED WITH plugin BY), PASSWORD, PASSWORD = and PASSWORD FOR
//     account = (mysql -e "CREATE USER ... IDENTIFIED BY 'x'", psql -c
//     "ALTER ROLE r PASSWORD 'x'"), in any case.
// 13. Code: an unquoted secret name or credential header (API_KEY, $password,
//     obj.apiKey, os.environ['TOKEN']), '=', ':' or "=>" (not '=='), then a quoted
//     string: its inside (python -c "API_KEY = 'x'", node -e "{ password:
//     'x' }"), or an escaped string in a string (GraphQL in JSON:
//     password: \"x\"); a pair's value after its name, in a call or object
//     (put_parameter(Name='/prod/db/password', Value='x'): kPairNames).
// 14. Code calls: the string arguments (a quoted string is the whole
//     argument) of a call kSecretCalls names, at its positions
//     (s.login('me', 'PW'), new PDO(dsn, 'u', 'PW')), and of a tuple, list
//     or call assigned to a secret name, every one but the first, or the
//     only one (requests.get(u, auth=('me', 'PW'))). Groups nested deeper
//     than kMaxCodeGroups take the outermost one's place.
// 15. Prompts answered in code: after an expect whose quoted pattern asks
//     for a secret (kSecretPrompts; in an expect block, a quoted pattern
//     before its action's brace), the quoted text of the next send or
//     sendline (expect -c '... expect "password:"; send "X\r"', pexpect's
//     c.expect('Password:'); c.sendline('X')).
// 16. Substitutions: the replacement of s/PATTERN/REPLACEMENT/ (any of
//     /|#,:@!% after an 's' starting a word: sed, perl -pe) is a line's
//     start, so a header or a secret name's assignment there is secret to
//     its end (sed -i 's/^DB_PASSWORD=.*/DB_PASSWORD=X/' .env).
//
// Time: every rule is linear in the argument's length. A scan that fails
// moves the rule's start past what it scanned whenever a start inside could
// only fail the same way, so no byte is scanned more than a bounded number
// of times (redact_test.cc and tests/test_shim_redaction_time.py feed the
// worst cases at 128 KiB).
//
// Overlapping or touching secret parts merge into one; each merged part
// counts as one redaction. When an argument holds more than kMaxSpans
// secrets, everything from the kMaxSpans-th secret to its end is redacted;
// when more than 2 * kMaxSpans match before merging, everything from the
// first secret to its end.
#ifndef AGT_DENY_SHIM_REDACT_H_
#define AGT_DENY_SHIM_REDACT_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "redact_rules.h"

namespace redact {

class Collector;  // redact.cc

inline constexpr std::string_view kMarker = "[REDACTED]";
inline constexpr std::size_t kMaxSpans = 32;
inline constexpr unsigned kMaxCommandDepth = 3;
inline constexpr unsigned kMaxCommands = 1024;
// The most kToolOptions rows one binary's redactor holds ("*" rows
// included); redact_test checks that no tool has more.
inline constexpr std::size_t kMaxToolRows = 16;

// The rows of one table (redact_rules.h) that name a binary: bit i for row i,
// of at most 128 (RowsFor checks each table's size when it is built).
__extension__ using RowSet = unsigned __int128;

struct Span {
  std::size_t begin;
  std::size_t end;
};

// The secret parts of one string: sorted, not overlapping, not touching.
struct Spans {
  Span items[kMaxSpans];
  std::size_t count = 0;
};

// No secret: for texts that are never redacted, without a Spans on the stack.
inline constexpr Spans kNoSpans{};

// True when `name` (an option, header or variable name) names a secret by
// the word lists of redact_rules.h. `allow_exclusions` turns on the
// non-secret first and last words.
bool IsSecretName(std::string_view name, bool allow_exclusions);

// Walks argv[1..] in order: options such as "--password" make the next
// argument secret, so the arguments must be fed one after another.
class Redactor {
 public:
  // `binary` is the denied name: the tool options (rule 2) depend on it.
  explicit Redactor(std::string_view binary);
  Redactor(const Redactor&) = delete;
  Redactor& operator=(const Redactor&) = delete;
  void NextArgument(std::string_view arg, Spans* out);
  // One element of an argv list in code (['curl', '-u', ...], rule 14), as
  // the next argument, or a command line of a list of them
  // (`command_line`): its spans into `spans`.
  void ListArgument(std::string_view arg, bool command_line, Collector* spans);
  // One command of the record's kMaxCommands (rule 11's commands, rule 14's
  // argv lists): false when none is left.
  bool Charge();

 private:
  friend void Standalone(std::string_view text, Spans* out);  // rule 11 on argv[0]
  // Rules 1-10 and 12-16 on one argument.
  void Collect(std::string_view arg, Collector* spans);
  void CommandLines(std::string_view arg, bool command_string, bool prints_secret,
                    Collector* spans);
  bool StartsCommand(std::string_view word);
  struct Pending {
    bool active = false;
    redact_rules::Value value = redact_rules::Value::kWhole;
    bool setting = false;  // rule 9's value, which is never an option
  };
  bool ToolOption(std::string_view arg, Collector* spans, bool* reference);
  void SettingName(std::string_view arg, bool is_option);       // rule 9
  void SettingsAfter(std::string_view arg);                     // rule 9
  void MarkedSecret(std::string_view arg, Collector* spans);    // kMarkedSecrets
  void CountedOperand(std::string_view arg, Collector* spans);  // kCountedOperands
  void PrintfOperand(std::string_view arg, Collector* spans);   // rule 11's printf formats
  void LoopWord(std::string_view arg, Collector* spans);        // rule 11's for and select
  void StoredValue(std::string_view arg, Collector* spans);     // kSecretStores
  void PairOption(std::string_view arg, bool is_option, Collector* spans);  // rule 3's pairs
  bool Applies(std::size_t row) const;
  bool NamesSecretFile(std::string_view word, std::string_view previous) const;  // rule 11

  Pending pending_;
  const redact_rules::ToolOption* rows_[kMaxToolRows];  // the rows for this binary
  std::size_t row_count_ = 0;
  unsigned seen_after_ = 0;                 // bit i: rows_[i]->after has been seen
  bool after_set_ = false;                  // rule 9: the next non-option argument is a name
  unsigned char operands_before_name_ = 0;  // ... after so many more (rule 9)
  bool every_name_ = false;                 // rule 9: every non-option argument is a name
  // Bit i: row i of the table names this binary.
  RowSet setting_rows_ = 0;     // kSettingNames
  RowSet positional_rows_ = 0;  // kPositionalSecrets
  RowSet marked_rows_ = 0;      // kMarkedSecrets
  RowSet store_rows_ = 0;       // kSecretStores
  bool stored_values_ = false;  // kSecretStores: after its `after`
  std::string_view tool_;
  unsigned positional_left_ = 0;   // kPositionalSecrets: arguments until the secret one
  unsigned positional_count_ = 1;  // ... how many from there (the row's count)
  unsigned positional_more_ = 0;   // ... how many are still to come
  // kPositionalSecrets offset 0: the next operand is this row's secret;
  // kEveryOperand: each one. Neither the value after the row's
  // value_options.
  const redact_rules::PositionalSecret* operand_row_ = nullptr;
  const redact_rules::PositionalSecret* every_operand_row_ = nullptr;
  bool value_next_ = false;              // the last argument was one of those options
  bool marked_secrets_ = false;          // kMarkedSecrets: after its `after`
  bool pair_name_next_ = false;          // rule 3: the last argument was --name (kPairNames)
  bool secret_pair_ = false;             // ... whose value was a secret name: --value is secret
  bool after_secret_reference_ = false;  // the last argument was $TOKEN: a comparison may follow
  // kCountedOperands: this tool's row, the operands seen, its flags seen.
  const redact_rules::CountedOperand* counted_row_ = nullptr;
  unsigned operands_seen_ = 0;
  bool counted_flag_ = false;
  bool fewer_flag_ = false;
  bool counted_value_next_ = false;
  // printf: its format seen, whose conversion i is secret when bit i is
  // set (of `conversions_`), the arguments after it so far, and whether
  // the next word is -v's variable or a redirection's target.
  bool printf_ = false;
  bool format_seen_ = false;
  std::uint32_t secret_conversions_ = 0;
  unsigned conversions_ = 0;
  unsigned printf_arguments_ = 0;
  bool printf_variable_next_ = false;
  bool printf_secret_variable_ = false;  // -v named a secret's variable
  bool printf_target_next_ = false;      // the last word was a redirection: its target
  // The shell's for and select: their variable's name next, then "in",
  // then the words, secret when the name is.
  enum class Loop : unsigned char { kNone, kName, kIn, kSecretWords };
  Loop loop_ = Loop::kNone;
  bool has_own_rows_ = false;                 // a row names this binary (not only "*" rows)
  bool after_command_string_option_ = false;  // the last argument was -c (rule 11)
  bool runs_script_arguments_ = false;        // the command string runs "$@": after $0, a command
  bool runs_shell_command_lines_ = false;     // kShellCommandRunners: as after -c, always
  bool after_secret_command_option_ = false;  // ... was --password-command (rule 11)
  bool free_text_ = false;                    // rules 8 and 9 off (rule 11)
  bool reads_secret_on_stdin_ = false;        // a secret option's value was stdin (rule 11)
  bool sed_ = false;                          // kSedCommands: a script's text lines (rule 16)
  RowSet prose_rows_ = 0;                     // kProseOptions
  RowSet command_string_rows_ = 0;            // kCommandStringOptions
  bool after_prose_option_ = false;           // the last argument was git commit's -m (rule 1)
  // Rule 11 at the top: a prefix (kCommandPrefixes), or a runner past its
  // subcommand (kRunnerSubcommands), runs a command named by a later
  // argument; that command's redactor reads the arguments from its name on
  // (sudo -u app mysql -pX: mysql's rows for -pX). This one when none.
  bool runs_command_ = false;
  unsigned char runner_operands_ = 0;  // since then, words no option or NAME=V (2 at most)
  RowSet runner_rows_ = 0;             // kRunnerSubcommands
  RowSet field_reader_rows_ = 0;       // kFieldReaderSubcommands
  RowSet option_pair_rows_ = 0;        // kOptionPairs
  RowSet secret_file_rows_ = 0;        // kSecretFileOptions
  Redactor* running_ = this;
  unsigned run_depth_ = 0;
  unsigned commands_left_ = kMaxCommands;  // rule 11, for the whole record
};

// Rules that need no context (1, 4-7, 10, 12, 13) and rule 11, for argv[0] and
// the exec path: either may be set to a command line.
void Standalone(std::string_view text, Spans* out);

}  // namespace redact

#endif  // AGT_DENY_SHIM_REDACT_H_
