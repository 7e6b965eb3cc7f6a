// Finds the secret parts of the arguments a denied command was given, so the
// record can replace each with "[REDACTED]" before anything is written.
//
// Rules (the man page lists the same, each has a unit test):
//  1. Credential HTTP headers: an argument "Name: value" (also inside
//     -HName: value, --header=Name: value, --proxy-header=...) whose Name is
//     Authorization, Proxy-Authorization, Cookie, Set-Cookie or holds a secret
//     word (X-Api-Key, X-Auth-Token, Private-Token, ...): the value.
//  2. User credentials: -u/--user/-U/--proxy-user "user:pass" and curl's
//     -E/--cert/--proxy-cert "file:pass" in the forms -u v, -uv, --user v,
//     --user=v, also bundled after other short flags (-su v, -sSLu:v; -sHv
//     for rule 1): everything after the first ':'.
//  3. Secret options: a long option whose name holds a secret word (password,
//     passwd, passphrase, pass, pwd, secret, token, apikey, key, credential,
//     auth, bearer, cookie, or a word ending in password/passwd/token/secret/
//     apikey) and no word that marks a non-secret value (no, stdin, file,
//     path, prompt, type, env, cmd, command, helper, length, id): the value
//     in --opt=value, or the whole next argument for --opt value.
//  4. URL userinfo: scheme://user:pass@host -> scheme://[REDACTED]@host.
//  5. Assignments NAME=value where NAME holds a secret word (as in rule 3),
//     at the start of an argument (value = rest of the argument), or after
//     '?', '&', ';', '=', ',' or white space (value ends at '&', '#', ',',
//     white space or a quote): AWS_SECRET_ACCESS_KEY=..., ?access_token=...,
//     -var=db_password=..., --set=a=1,db.password=...
//  6. Authorization schemes in free text: "Bearer X" / "Basic X" with X at
//     least 8 token characters: X.
//  7. Token shapes anywhere (at a word start): AWS access key ids
//     (AKIA/ASIA/... + 16), GitHub (ghp_/gho_/ghu_/ghs_/ghr_, github_pat_),
//     GitLab (glpat-), Slack (xoxb-/xoxp-/...), Google API keys (AIza),
//     sk-/sk_live_/rk_live_ secret keys, npm_ and hf_ tokens, JWTs
//     (eyJ....eyJ....sig) and PEM private key blocks (BEGIN to END or to the
//     end of the argument).
//  8. Login short options: after an argument "login", -p v / -pv of az,
//     docker, helm and podman (their password option; elsewhere -p is a
//     port): the value. See kLoginPasswordOptions.
//  9. Settings: the first non-option argument after "set" whose name holds a
//     secret word (as in rule 3) makes the next argument secret: aws
//     configure set aws_secret_access_key V, npm config set _authToken V,
//     git config set http.proxyPassword V.
// 10. Quoted members: a quoted name holding a secret word (as in rule 3)
//     followed by ':' and a quoted or bare value, as in JSON request bodies
//     and Python dicts ({"password":"x"}, {'token': 'x'}): the value.
// Overlapping or touching secret parts merge into one; each merged part
// counts as one redaction. When an argument holds more than kMaxSpans
// secrets, everything from the first secret to its end is redacted.
#ifndef AGT_DENY_SHIM_REDACT_H_
#define AGT_DENY_SHIM_REDACT_H_

#include <cstddef>
#include <string_view>

namespace redact {

inline constexpr std::string_view kMarker = "[REDACTED]";
inline constexpr std::size_t kMaxSpans = 32;

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

// True when `name` (an option, header or variable name) names a secret,
// split into words at '-', '_' and '.' and compared case-insensitively.
// `allow_exclusions` turns on the non-secret words of rule 3.
bool IsSecretName(std::string_view name, bool allow_exclusions);

// Walks argv[1..] in order: options such as "--password" make the next
// argument secret, so the arguments must be fed one after another.
class Redactor {
 public:
  // `binary` is the denied name: rule 8 depends on it.
  explicit Redactor(std::string_view binary);
  void NextArgument(std::string_view arg, Spans* out);

 private:
  enum class Pending { kNone, kWholeValue, kUserPassword };
  Pending pending_ = Pending::kNone;
  std::string_view login_password_option_;  // rule 8 for this binary, or ""
  bool after_login_ = false;
  bool after_set_ = false;  // rule 9: the next non-option argument is a name
};

// Rule 8's table: commands whose short option is a password after "login".
struct LoginPasswordOption {
  std::string_view binary;
  std::string_view option;
};
inline constexpr LoginPasswordOption kLoginPasswordOptions[] = {
    {"az", "-p"}, {"docker", "-p"}, {"helm", "-p"}, {"podman", "-p"},
};

// Rules that need no context (1, 4-7, 10), for argv[0] and the exec path.
void Standalone(std::string_view text, Spans* out);

}  // namespace redact

#endif  // AGT_DENY_SHIM_REDACT_H_
