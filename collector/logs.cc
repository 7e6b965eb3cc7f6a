#include "logs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

namespace logs {
namespace {

std::string g_command;
int64_t g_last_problem = 0;
std::string g_last_problem_text;
bool g_status_shown = false;

// "\r" and erase-to-end-of-line: the status line is gone, the cursor at its start.
constexpr char kEraseLine[] = "\r\033[K";

void ClearStatusLine() {
  if (!g_status_shown) return;
  fputs(kEraseLine, stderr);
  g_status_shown = false;
}

// One fputs of the whole line: lines from one process never interleave.
void Say(const char* kind, const std::string& text) {
  ClearStatusLine();
  std::string line = "agt-collector: ";
  line += kind;
  if (!g_command.empty()) line += g_command + ": ";
  line += text;
  line += '\n';
  fputs(line.c_str(), stderr);
}

}  // namespace

void SetCommand(const std::string& command) { g_command = command; }

void Error(const std::string& reason) {
  g_last_problem = static_cast<int64_t>(time(nullptr));
  g_last_problem_text = "error: " + reason;
  Say("error: ", reason);
}
void Warning(const std::string& reason) {
  g_last_problem = static_cast<int64_t>(time(nullptr));
  g_last_problem_text = "warning: " + reason;
  Say("warning: ", reason);
}
void Status(const std::string& text) {
  fputs((kEraseLine + text).c_str(), stderr);
  g_status_shown = true;
}

void ClearStatus() { ClearStatusLine(); }

int64_t LastProblemTime() { return g_last_problem; }
const std::string& LastProblem() { return g_last_problem_text; }
void Note(const std::string& message) { Say("", message); }

void Rejected(const std::string& where, const std::string& reason) {
  ClearStatusLine();
  fputs((where + ": " + reason + "\n").c_str(), stderr);
}

std::string ErrnoReason(const char* call, const std::string& path, int errnum) {
  // A call on no path (a system call on a descriptor) reads "CALL: why".
  return std::string(call) + (path.empty() ? "" : " " + path) + ": " + strerror(errnum);
}

std::string ErrnoReason(const char* call, const std::string& path) {
  return ErrnoReason(call, path, errno);
}

}  // namespace logs
