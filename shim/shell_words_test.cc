#include "shell_words.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace {

// Each token as text: a separator as itself, a word as "<inner>" when its
// quotes were taken off, else as written.
std::vector<std::string> Tokens(std::string_view text,
                                shell_words::Inside inside = shell_words::Inside::kNone) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  shell_words::Token t;
  while (shell_words::Next(text, &pos, &t, inside)) {
    CHECK(t.begin < t.end);
    CHECK(t.begin <= t.inner_begin);
    CHECK(t.inner_end <= t.end);
    std::string word(text.substr(t.begin, t.end - t.begin));
    if (t.inner_begin != t.begin) {
      word = "<" + std::string(text.substr(t.inner_begin, t.inner_end - t.inner_begin)) + ">";
    }
    out.push_back(t.separator ? "|" + word : word);
  }
  CHECK(pos == text.size());
  return out;
}

using V = std::vector<std::string>;
constexpr shell_words::Inside kDq = shell_words::Inside::kDoubleQuotes;
constexpr shell_words::Inside kJoined = shell_words::Inside::kJoinedSingleQuotes;

}  // namespace

TEST_CASE("shell words: blanks split words, separators stand alone") {
  CHECK(Tokens("curl -u me:pw x") == V{"curl", "-u", "me:pw", "x"});
  CHECK(Tokens("  a\tb  ") == V{"a", "b"});
  CHECK(Tokens("a;b&&c|d\ne") == V{"a", "|;", "b", "|&", "|&", "c", "||", "d", "|\n", "e"});
  CHECK(Tokens("x=$(curl -u a:b)") == V{"x=$", "|(", "curl", "-u", "a:b", "|)"});
  CHECK(Tokens("`id`") == V{"|`", "id", "|`"});
  CHECK(Tokens("").empty());
  CHECK(Tokens(" \t ").empty());
}

TEST_CASE("shell words: quotes keep blanks and separators in the word") {
  CHECK(Tokens("curl -H 'Authorization: token abc' x") ==
        V{"curl", "-H", "<Authorization: token abc>", "x"});
  CHECK(Tokens("sh -c \"curl -u a:b; id\"") == V{"sh", "-c", "<curl -u a:b; id>"});
  // Not one quoted string: as written.
  CHECK(Tokens("--password='a b'") == V{"--password='a b'"});
  CHECK(Tokens("'a'b") == V{"'a'b"});
  CHECK(Tokens("'a'\"b\"") == V{"'a'\"b\""});
  CHECK(Tokens("''") == V{"<>"});
  // A backslash escapes inside double quotes, not inside single ones.
  CHECK(Tokens("\"a\\\" b\" c") == V{"<a\\\" b>", "c"});
  CHECK(Tokens("'a\\' b") == V{"<a\\>", "b"});
  // Outside quotes it escapes a blank or a separator.
  CHECK(Tokens("a\\ b\\;c d") == V{"a\\ b\\;c", "d"});
}

TEST_CASE("shell words: $'...' and $\"...\" are quotes too") {
  CHECK(Tokens("bash -c $'curl -u a:b x'") == V{"bash", "-c", "<curl -u a:b x>"});
  CHECK(Tokens("$'a\\' b' c") == V{"<a\\' b>", "c"});  // a backslash escapes in $'...'
  CHECK(Tokens("$\"a b\"") == V{"<a b>"});
  CHECK(Tokens("$x 'a b'") == V{"$x", "<a b>"});
  CHECK(Tokens("x$'a b'") == V{"x$'a b'"});
  CHECK(Tokens("$'") == V{"$'"});
  CHECK(Tokens("$") == V{"$"});
}

TEST_CASE("shell words: unclosed quotes and trailing backslashes run to the end") {
  CHECK(Tokens("curl 'a b") == V{"curl", "'a b"});
  CHECK(Tokens("a \"b\\") == V{"a", "\"b\\"});
  CHECK(Tokens("a\\") == V{"a\\"});
  CHECK(Tokens("'") == V{"'"});
  CHECK(Tokens("\"") == V{"\""});
}

TEST_CASE("shell words: inside a double-quoted word, \\\" quotes at its level") {
  // sh -c "su app -c \"curl -u u:X h\"" inside bash -c '...': the text
  // between the outer quotes, not yet unquoted.
  CHECK(Tokens("su app -c \\\"curl -u u:X h\\\"", kDq) == V{"su", "app", "-c", "<curl -u u:X h>"});
  // Unescaped text keeps the backslash a plain escape.
  CHECK(Tokens("a \\\"b c\\\"") == V{"a", "\\\"b", "c\\\""});
  // \\\\ is a backslash, which escapes what follows: \\\\\\\" a quote inside
  // the string, \\\\  a blank.
  CHECK(Tokens("echo \\\"a \\\\\\\" b\\\" x", kDq) == V{"echo", "<a \\\\\\\" b>", "x"});
  CHECK(Tokens("a\\\\ b c", kDq) == V{"a\\\\ b", "c"});
  // Unclosed, to the end; empty, an empty word.
  CHECK(Tokens("x \\\"a b", kDq) == V{"x", "\\\"a b"});
  CHECK(Tokens("\\\"\\\"", kDq) == V{"<>"});
}

TEST_CASE("shell words: single-quoted strings joined by escaped quotes are one") {
  // 'a '\''b c'\''' is a b c with its inner quotes: taken off as one string,
  // whose inside reads '\'' (or '"'"') as a single quote.
  CHECK(Tokens("ssh h 'mysql -e '\\''select 1'\\'''") ==
        V{"ssh", "h", "<mysql -e '\\''select 1'\\''>"});
  CHECK(Tokens("x 'a '\"'\"'b'\"'\"''") == V{"x", "<a '\"'\"'b'\"'\"'>"});
  CHECK(Tokens("mysql -e '\\''select 1'\\''", kJoined) == V{"mysql", "-e", "<select 1>"});
  CHECK(Tokens("a '\"'\"'b c'\"'\"' d", kJoined) == V{"a", "<b c>", "d"});
  // A double-quoted string there: a joined quote inside it is no '"'.
  CHECK(Tokens("echo \"it'\"'\"'s\" x", kJoined) == V{"echo", "<it'\"'\"'s>", "x"});
  // A lone single quote of the outer strings is passed over; unclosed, to the end.
  CHECK(Tokens("a'b c", kJoined) == V{"a'b", "c"});
  CHECK(Tokens("x '\\''a b", kJoined) == V{"x", "'\\''a b"});
  // Not joined: one string, or strings glued without an escaped quote.
  CHECK(Tokens("'a b'") == V{"<a b>"});
  CHECK(Tokens("'a''b c'") == V{"'a''b c'"});
  CHECK(Tokens("'a'\\''b' c") == V{"<a'\\''b>", "c"});
}
