// Test helper: exec PROGRAM with argc == 0 (an empty argv), keeping the
// environment. Usage: exec_empty_argv PROGRAM
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern char** environ;

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: exec_empty_argv PROGRAM\n");
    return 2;
  }
  char* empty[] = {nullptr};
  execve(argv[1], empty, environ);
  fprintf(stderr, "exec_empty_argv: error: execve %s: %s\n", argv[1], strerror(errno));
  return 127;
}
