// Renders the redaction rule table (redact_rules.h) as the man page's
// REDACTION TABLE section (mdoc), so the documentation is the code's own
// rows. tests/test_shim_manpage.py checks man/agt-deny-shim.1 holds exactly
// this text between its markers; `redact_table_gen --write PAGE` puts it there.
#include <stdio.h>

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "redact_rules.h"

namespace {

constexpr std::string_view kBegin =
    ".\\\" BEGIN REDACTION TABLE: generated from shim/redact_rules.h by shim/redact_table_gen; do "
    "not edit\n";
constexpr std::string_view kEnd = ".\\\" END REDACTION TABLE\n";

// Text safe inside an mdoc line: '-' as \- (a literal hyphen-minus) and '\'
// doubled.
std::string Roff(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '-') {
      out += "\\-";
    } else if (c == '\\') {
      out += "\\e";
    } else {
      out += c;
    }
  }
  return out;
}

// Text lines of at most 72 bytes, broken at spaces; a line that would start
// with a control character ('.' or '\'') is escaped.
std::string Wrap(const std::string& text) {
  std::string out;
  std::string line;
  std::istringstream words(text);
  std::string word;
  auto flush = [&]() {
    if (line.empty()) return;
    if (line[0] == '.' || line[0] == '\'') out += "\\&";
    out += line + "\n";
    line.clear();
  };
  while (words >> word) {
    if (!line.empty() && line.size() + 1 + word.size() > 72) flush();
    if (!line.empty()) line += ' ';
    line += word;
  }
  flush();
  return out;
}

// A macro argument ending in punctuation mdoc would move out of it ("SG."):
// a zero-width \& keeps it in.
std::string Literal(std::string_view text) {
  std::string out = Roff(text);
  char last = text.empty() ? ' ' : text.back();
  if (last == '.' || last == ':' || last == ',' || last == ';') out += "\\&";
  return out;
}

template <std::size_t N>
std::string WordList(const std::string_view (&words)[N]) {
  std::string out;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) out += ", ";
    out += Roff(words[i]);
  }
  return out;
}

std::string_view ValueText(redact_rules::Value value) {
  switch (value) {
    case redact_rules::Value::kWhole: return "the whole value";
    case redact_rules::Value::kAfterColon: return "after the first : (and a key as the user)";
    case redact_rules::Value::kAfterComma: return "after the first ,";
    case redact_rules::Value::kAfterPercent: return "after the first %";
    case redact_rules::Value::kHeader: return "a credential header's value";
    case redact_rules::Value::kPassSource:
      return "after pass:, key: or hexkey: (env:, file:, fd: name no secret)";
    case redact_rules::Value::kCookies: return "the value when it holds = (else a cookie file)";
    case redact_rules::Value::kConnectString:
      return "in user/password@db, the password (after the first / before any @)";
    case redact_rules::Value::kUnlessPath:
      return "the whole value, unless it starts with / ~ ./ ../ file:// fileb:// or ends in a key "
             "file's extension";
    case redact_rules::Value::kTarget:
      return "in [domain/]user:password@host, the password (from the first : to the last @)";
    case redact_rules::Value::kReference: return "nothing: the value names a secret, holds none";
  }
  return "";
}

// A table of subcommands as "docker podman: run exec create; ...".
template <std::size_t N>
std::string Subcommands(const redact_rules::ToolSubcommands (&rows)[N]) {
  std::string out;
  for (const redact_rules::ToolSubcommands& row : rows) {
    if (!out.empty()) out += "; ";
    out += Roff(std::string(row.tools) + ": " + std::string(row.subcommands));
  }
  return out;
}

// A table of ToolWord rows as "sudo -S, sudo --stdin, ...".
template <std::size_t N>
std::string ToolWords(const redact_rules::ToolWord (&rows)[N]) {
  std::string out;
  for (const redact_rules::ToolWord& row : rows) {
    if (!out.empty()) out += ", ";
    out += Roff(std::string(row.tools) + " " + std::string(row.option));
  }
  return out;
}

std::string FormsText(unsigned char forms) {
  std::string out;
  auto add = [&out](std::string_view word) {
    if (!out.empty()) out += ", ";
    out += word;
  };
  if (forms & redact_rules::kAttached) add("attached");
  if (forms & redact_rules::kSeparate) add("separate");
  if (forms & redact_rules::kBundled) add("bundled");
  return out;
}

// "first" for 1, as the Settings rows count their operands.
std::string Ordinal(unsigned n) {
  static constexpr std::string_view kWords[] = {"first", "second", "third", "fourth"};
  return n >= 1 && n <= std::size(kWords) ? std::string(kWords[n - 1]) : std::to_string(n) + "th";
}

std::string_view BodyText(redact_rules::Body body) {
  switch (body) {
    case redact_rules::Body::kAlnum: return "A\\-Z a\\-z 0\\-9";
    case redact_rules::Body::kAlnumUnderscore: return "A\\-Z a\\-z 0\\-9 _";
    case redact_rules::Body::kUpperAlnum: return "A\\-Z 0\\-9";
    case redact_rules::Body::kBase64Url: return "A\\-Z a\\-z 0\\-9 \\- _";
    case redact_rules::Body::kBase64UrlDot: return "A\\-Z a\\-z 0\\-9 \\- _ .";
    case redact_rules::Body::kAlnumDash: return "A\\-Z a\\-z 0\\-9 \\-";
  }
  return "";
}

std::string Render() {
  std::ostringstream out;
  out << kBegin;
  out << ".Ss Names\n"
      << "A name (an option, variable, header, query parameter or quoted\n"
      << "member) is split into words at\n"
      << ".Ql \\- ,\n.Ql _ ,\n.Ql \\&. ,\n.Ql \\&: ,\n.Ql /\n"
      << "and where a lower-case letter meets an upper-case one, and compared\n"
      << "case-insensitively.\n"
      << ".Bl -tag -width Ds\n"
      << ".It secret words\n"
      << Wrap(WordList(redact_rules::kSecretWords)) << ".It secret word endings\n"
      << Wrap(WordList(redact_rules::kSecretSuffixes) +
              " (pwd and oldpwd alone are directories; ?pwd=, &pwd= and ;pwd= a password)")
      << ".It secret as the last word only\n"
      << Wrap(WordList(redact_rules::kSecretLastWords));
  for (const redact_rules::QualifiedWord& qualified : redact_rules::kQualifiedWords) {
    std::string list;
    for (std::size_t q = 0; q < qualified.count; ++q)
      list += (q > 0 ? ", " : "") + Roff(qualified.qualifiers[q]);
    out << ".It " << Roff(qualified.word) << ", only right after\n" << Wrap(list);
  }
  out << ".It not secret as the last word\n"
      << Wrap(WordList(redact_rules::kNonSecretLastWords) + " (id right after secret is)")
      << ".It not secret as the first word\n"
      << Wrap(WordList(redact_rules::kNonSecretFirstWords))
      << ".It a reference to a secret kept elsewhere, as any word\n"
      << Wrap(WordList(redact_rules::kReferenceWords)) << ".It credential headers\n"
      << Wrap(WordList(redact_rules::kCredentialHeaders))
      << ".It header option names ending in -key or _key that are no credential\n"
      << Wrap(WordList(redact_rules::kNonCredentialKeyHeaders))
      << ".It last words of a header option's names that say who asks (rule 1)\n"
      << Wrap(WordList(redact_rules::kHeaderIdentityWords))
      << ".It names that hold a credential in a query string, after ?, & or ; (rule 5)\n"
      << Wrap(WordList(redact_rules::kQuerySecretNames) + "; code, of " +
              std::to_string(redact_rules::kMinOAuthCodeLength) + " bytes or more")
      << ".It pair names, then pair values (rule 10)\n"
      << Wrap(WordList(redact_rules::kPairNames) + "; " + WordList(redact_rules::kPairValues))
      << ".It options whose value is prose, where a Name: value of more than one word is text "
         "(rule 1)\n"
      << Wrap(ToolWords(redact_rules::kProseOptions))
      << ".It options whose value is a command string a shell runs, as after sh -c (rule 11)\n"
      << Wrap(ToolWords(redact_rules::kCommandStringOptions))
      << ".It names of many secrets that, ':' glued to a word, are a task's namespace (rule 1)\n"
      << Wrap(WordList(redact_rules::kTaskNamespaces))
      << ".It tasks that, ':' glued before them, make a secret name a namespace (rule 1)\n"
      << Wrap(WordList(redact_rules::kTaskVerbs)) << ".It keywords before a secret argument\n"
      << Wrap(WordList(redact_rules::kSecretKeywords))
      << ".It SQL's comparisons: after a keyword or setting's name, no value follows (rule 8)\n"
      << Wrap(WordList(redact_rules::kSqlComparisons))
      << ".It default passwords, as a substitution's pattern (rule 16)\n"
      << Wrap(WordList(redact_rules::kPlaceholderPasswords)) << ".It command prefixes (rule 11)\n"
      << Wrap(WordList(redact_rules::kCommandPrefixes))
      << ".It calls whose string arguments are a command's argv (rule 14)\n"
      << Wrap(WordList(redact_rules::kArgvCalls))
      << ".It calls whose first string is a command line a shell runs (rule 14)\n"
      << Wrap(WordList(redact_rules::kShellStringCalls))
      << ".It names whose list holds command lines (rule 14)\n"
      << Wrap(WordList(redact_rules::kCommandListNames))
      << ".It calls whose string argument names a secret, holds none: shown when assigned "
         "(rule 14)\n"
      << Wrap(WordList(redact_rules::kNamingCalls))
      << ".It runners: after one of their subcommands, prefixes too (rule 11)\n"
      << Wrap(Subcommands(redact_rules::kRunnerSubcommands))
      << ".It password managers' readers: rules 8 and 9 off after these subcommands\n"
      << Wrap(Subcommands(redact_rules::kFieldReaderSubcommands)) << ".It shells (rule 5)\n"
      << Wrap(WordList(redact_rules::kShells))
      << ".It PowerShell: after its -c, a variable's reference is shown (rule 11)\n"
      << Wrap(WordList(redact_rules::kPowerShells))
      << ".It tools whose arguments a shell runs, command strings as after -c (rule 11)\n"
      << Wrap(WordList(redact_rules::kShellCommandRunners))
      << ".It of those, the ones no shell runs: '$' is no variable's reference there (rule 11)\n"
      << Wrap(WordList(redact_rules::kLiteralCommandRunners))
      << ".It a crontab line's schedules before its command, besides words of digits and "
         "*,-/ (rule 11)\n"
      << Wrap(WordList(redact_rules::kCronSchedules))
      << ".It searchers, whose words are patterns and files: no rule 8 or 9 (rule 11)\n"
      << Wrap(WordList(redact_rules::kPatternSearchers))
      << ".It options that read a secret on standard input (rule 11)\n"
      << Wrap(WordList(redact_rules::kStdinSecretOptions))
      << ".It commands that read a secret on standard input (rule 11)\n"
      << Wrap(WordList(redact_rules::kStdinSecretCommands))
      << ".It one tool's options and subcommands that read a secret on standard input (rule "
         "11)\n"
      << Wrap(ToolWords(redact_rules::kToolStdinSecretOptions) +
              " (a one-letter one also among other flags)")
      << ".It the standard input as a secret's value (rule 11), after a secret name's = or "
         "option\n"
      << Wrap(WordList(redact_rules::kStdinPaths))
      << ".It commands whose arguments are what they print (rule 11)\n"
      << Wrap(WordList(redact_rules::kEchoCommands))
      << ".It names whose value is a command that prints a secret, by their end (rule 11)\n"
      << Wrap(WordList(redact_rules::kSecretCommandNames))
      << ".It names of a file of secrets, by their end (rule 11)\n"
      << Wrap(WordList(redact_rules::kSecretFileOptionEnds))
      << ".It one tool's options naming its config file of secrets (rule 11)\n"
      << Wrap(ToolWords(redact_rules::kSecretFileOptions))
      << ".It credential files, besides secret names (rule 11)\n"
      << Wrap(WordList(redact_rules::kCredentialFiles))
      << ".It commands that write their input to the files they name (rule 11)\n"
      << Wrap(WordList(redact_rules::kTeeCommands)) << ".It authorization schemes\n"
      << Wrap(WordList(redact_rules::kAuthSchemes))
      << ".It a line protocol's password commands, in capitals (rule 6)\n"
      << Wrap(WordList(redact_rules::kProtocolPasswordCommands)) << ".It capability path segments\n"
      << Wrap(WordList(redact_rules::kCapabilitySegments)) << ".It capability hosts starting with\n"
      << Wrap(WordList(redact_rules::kCapabilityHostPrefixes)) << ".It stream key schemes\n"
      << Wrap(WordList(redact_rules::kStreamKeySchemes)) << ".It bot token hosts\n"
      << Wrap(WordList(redact_rules::kBotTokenHosts))
      << ".It a CI's command masking the rest of its line (rule 7)\n"
      << Wrap(WordList(redact_rules::kMaskMarkers)) << ".It not userinfo after @\n"
      << Wrap(WordList(redact_rules::kDigestPrefixes))
      << ".It prompts asking for a secret (rule 15)\n"
      << Wrap(WordList(redact_rules::kSecretPrompts)) << ".It waits for a prompt (rule 15)\n"
      << Wrap(WordList(redact_rules::kPromptWaits)) << ".It answers to a prompt (rule 15)\n"
      << Wrap(WordList(redact_rules::kPromptAnswers)) << ".El\n";
  out << ".Ss Tool options\n"
      << "Attached is\n.Fl p Ns Ar V ,\n.Fl \\-opt= Ns Ar V\nor\n.Ql /p:V\n"
      << "(and, for an option attached only, its value glued on:\n.Fl hp Ns Ar V ) ;\nseparate is\n"
      << ".Fl p Ar V ;\nbundled is after other one-letter flags,\n.Fl sSLu Ar V .\n"
      << ".Bl -tag -width Ds\n";
  for (const redact_rules::ToolOption& row : redact_rules::kToolOptions) {
    std::string text = (row.tools == "*" ? std::string("every tool") : Roff(row.tools)) + ": " +
                       FormsText(row.forms) + "; " + std::string(ValueText(row.value));
    if (!row.after.empty()) text += "; once " + Roff(row.after) + " was seen";
    out << ".It Li " << Literal(row.option) << "\n" << Wrap(text + ".");
  }
  out << ".El\n";
  out << ".Ss Positional secrets\n"
      << ".Bl -tag -width Ds\n";
  for (const redact_rules::PositionalSecret& row : redact_rules::kPositionalSecrets) {
    std::string text;
    if (row.offset == redact_rules::kEveryOperand) {
      text = (row.trigger.empty() ? std::string("from the start")
                                  : "after the argument " + Roff(row.trigger) + " (any case)") +
             ", every argument that is neither an option nor NAME=value";
      if (!row.value_options.empty()) text += ", but the value after " + Roff(row.value_options);
      text += ".";
    } else if (row.offset == 0) {
      text = (row.trigger.empty() ? std::string("from the start")
                                  : "after the argument " + Roff(row.trigger) + " (any case)") +
             ", the first that is neither an option nor NAME=value";
      if (!row.value_options.empty()) text += " nor the value after " + Roff(row.value_options);
      if (row.value != redact_rules::Value::kWhole)
        text += ": " + std::string(ValueText(row.value));
      text += ".";
    } else {
      text = "after an argument starting with " + Roff(row.trigger) + " the argument " +
             std::to_string(row.offset) + " places on";
      if (row.count > 1) text += " and the " + std::to_string(row.count - 1) + " after it";
      text += ".";
    }
    out << ".It " << Roff(row.tools) << "\n" << Wrap(text);
  }
  for (const redact_rules::CountedOperand& row : redact_rules::kCountedOperands) {
    std::string text = row.flag == 0 ? "operand " + std::to_string(row.operand)
                                     : "with -" + std::string(1, row.flag) +
                                           " among the one-letter flags, operand " +
                                           std::to_string(row.operand);
    if (row.also_operand != 0) text += " and operand " + std::to_string(row.also_operand);
    if (row.fewer_flag != 0) {
      text += " (with -" + std::string(1, row.fewer_flag) + ", operand " +
              std::to_string(row.operand - 1) + ")";
    }
    if (!row.value_options.empty())
      text += "; the value after " + Roff(row.value_options) + " is no operand";
    out << ".It " << Roff(row.tools) << "\n" << Wrap(text + ".");
  }
  for (const redact_rules::MarkedSecret& row : redact_rules::kMarkedSecrets) {
    out << ".It " << Roff(row.tools) << "\n"
        << Wrap("after the argument " + Roff(row.after) +
                " (any case), an argument starting with one of " + Roff(row.marks) +
                ", past that character.");
  }
  out << ".El\n";
  out << ".Ss Secret stores\n"
      << ".Bl -tag -width Ds\n";
  for (const redact_rules::SecretStore& row : redact_rules::kSecretStores) {
    out << ".It " << Roff(row.tools) << "\n"
        << Wrap("after " + Roff(row.after) +
                " (any case), the value of every NAME=VALUE argument, or of an option's "
                "attached \\-\\-opt=NAME=VALUE, unless NAME's last word is one that is not "
                "secret as the last word.");
  }
  out << ".El\n";
  out << ".Ss Settings\n"
      << ".Bl -tag -width Ds\n";
  for (const redact_rules::SettingNames& row : redact_rules::kSettingNames) {
    const std::string where =
        row.after.empty() ? std::string("from the start") : "after " + Roff(row.after);
    out << ".It " << (row.tools == "*" ? std::string("every tool") : Roff(row.tools)) << "\n"
        << Wrap(row.every ? where + ", each argument that is no option and has " +
                                "\\&. or _, a lower-case letter before an upper-case one, or is a "
                                "secret word."
                          : where + ", the " + Ordinal(row.operands_before + 1) +
                                " argument that is no option.");
  }
  out << ".El\n";
  out << ".Ss Calls\n"
      << "Rule 14: of a call's arguments, counted from 1, those that are a quoted\n"
      << "string; the name is the last part of a dotted one, in any case.\n"
      << "As a template's filter\n"
      << ".Pq Jinja's Ql 'x' | password_hash('sha512')\n"
      << "the string piped in is argument 1, and those in its parentheses follow.\n"
      << ".Bl -tag -width Ds\n";
  for (const redact_rules::SecretCall& call : redact_rules::kSecretCalls) {
    const std::string first = std::to_string(call.first);
    out << ".It Li " << Literal(call.name) << "\n"
        << Wrap((call.first == call.last
                     ? "argument " + first
                     : "arguments " + first + " to " + std::to_string(call.last)) +
                (call.lone ? ", or the only one." : "."));
  }
  out << ".El\n";
  out << ".Ss Token prefixes\n"
      << "At the start of a word, the prefix and at least the given number of\n"
      << "body characters:\n"
      << ".Bl -column \"prefix\" \"body\" \"min\" \"issuer\"\n"
      << ".It Sy prefix Ta Sy body Ta Sy min Ta Sy issuer\n";
  for (const redact_rules::TokenShape& shape : redact_rules::kTokenShapes) {
    out << ".It Li " << Literal(shape.prefix) << " Ta " << BodyText(shape.body) << " Ta "
        << static_cast<unsigned>(shape.min_body) << " Ta " << Roff(shape.issuer) << "\n";
  }
  out << ".El\n";
  out << kEnd;
  return out.str();
}

}  // namespace

int main(int argc, char** argv) {
  std::string table = Render();
  if (argc == 1) {
    fputs(table.c_str(), stdout);
    return 0;
  }
  if (argc != 3 || std::string_view(argv[1]) != "--write") {
    fprintf(stderr, "usage: redact_table_gen [--write MANPAGE]\n");
    return 2;
  }
  std::ifstream in(argv[2]);
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string page = buffer.str();
  std::size_t begin = page.find(kBegin);
  std::size_t end = page.find(kEnd);
  if (!in || begin == std::string::npos || end == std::string::npos || end < begin) {
    fprintf(stderr, "redact_table_gen: error: %s: no REDACTION TABLE markers\n", argv[2]);
    return 1;
  }
  page.replace(begin, end + kEnd.size() - begin, table);
  std::ofstream(argv[2]) << page;
  return 0;
}
