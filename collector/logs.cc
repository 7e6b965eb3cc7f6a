#include "logs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

namespace logs {
namespace {

std::string g_command;

// One fputs of the whole line: lines from one process never interleave.
void Say(const char* kind, const std::string& text) {
  std::string line = "agt-collector: ";
  line += kind;
  if (!g_command.empty()) line += g_command + ": ";
  line += text;
  line += '\n';
  fputs(line.c_str(), stderr);
}

}  // namespace

void SetCommand(const std::string& command) { g_command = command; }

void Error(const std::string& reason) { Say("error: ", reason); }
void Warning(const std::string& reason) { Say("warning: ", reason); }
void Note(const std::string& message) { Say("", message); }

void Rejected(const std::string& where, const std::string& reason) {
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
