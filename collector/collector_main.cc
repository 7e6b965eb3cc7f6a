// agt-collector: turns sandbox denial logs into the signed AGT audit chain.
// Two tables make the whole command line: the subcommands (name, usage,
// help, handler) and every option (a row per option and the subcommands
// that take it, help in the row). Parsing, usage and --help come from them.
#include <stdio.h>
#include <string.h>

#include <string>

#include "check_config_command.h"
#include "cli_args.h"
#include "collector_version.h"
#include "exit_status.h"
#include "export_command.h"
#include "forward_command.h"
#include "import_command.h"
#include "keygen_command.h"
#include "logs.h"
#include "run_command.h"
#include "status_command.h"
#include "verify_command.h"

namespace {

// A bit per subcommand, for the option table's `commands` column.
enum : unsigned {
  kImport = 1u << 0,
  kValidate = 1u << 1,
  kVerify = 1u << 2,
  kCheckConfig = 1u << 3,
  kRun = 1u << 4,
  kKeygen = 1u << 5,
  kForward = 1u << 6,
  kExport = 1u << 7,
  kStatus = 1u << 8,
};

const cli_args::OptionRow kOptions[] = {
    {"--key-file", "K", "file holding the raw HMAC key (or key_file in --config)", kImport | kRun},
    {"--key-file", "K", "file holding the raw HMAC key the entries were signed with", kVerify},
    {"--out", "FILE", "audit JSONL file to append to (or output in --config)", kImport | kRun},
    {"--out", "FILE", "key file to create (mode 0600; never overwritten)", kKeygen},
    {"--sandbox-id", "ID", "sandbox id for every LOG (labels otherwise from --config)", kImport},
    {"--state-dir", "DIR", "checkpoint directory, one file per sandbox (or state_dir in --config)",
     kRun},
    {"--watch", "PATTERN...",
     "log path with one {sandbox_id} component, e.g."
     " /var/log/agt/sandboxes/{sandbox_id}/denied.log; repeatable (or watch in --config)",
     kRun, true},
    {"--config", "C", "configuration: labels per source, limits, key file, output", kImport},
    {"--listen", "PATH",
     "bind the attested unix socket at PATH (SOCK_SEQPACKET, mode 0666) beside or instead of"
     " --watch (or listen in --config)",
     kRun},
    {"--shim", "PATH",
     "the genuine shim executable: a sender must run the same content (or shim"
     " in --config)",
     kRun},
    {"--shim-sha256", "HEX",
     "the genuine shim's SHA-256 instead of --shim (or shim_sha256 in"
     " --config)",
     kRun},
    {"--cgroup-pattern", "REGEX",
     "sandbox id from a socket peer's cgroup path: the first group of REGEX (default: the Docker,"
     " containerd, CRI-O and Kubernetes layouts)",
     kRun},
    {"--alone-sync-under", "US",
     "a message that came alone to --listen is synced in line when the last fdatasync took"
     " under US microseconds (default 2000; 0 turns this off)",
     kRun},
    {"--config", "C", "configuration (for its limits)", kValidate},
    {"--config", "C", "configuration: labels per source, limits, key file, output, state_dir",
     kRun},
    {"--syslog-socket", "PATH",
     "local syslog datagram socket (default /dev/log); \"none\" disables", kRun},
    {"--scan-interval", "MS",
     "reconciliation scan period in milliseconds (default 1000); logs with an inotify watch are"
     " checked every 10th scan",
     kRun},
    {"--new-chain", nullptr,
     "when the audit file was tampered with: move it aside (FILE.tampered-TIME) and start a new"
     " one whose first entry records what was found (without it, run refuses: exit 65)",
     kRun},
    {"--no-append-only", nullptr,
     "do not create the sandbox logs nor mark them append-only (they are only read)", kRun},
    {"--state-dir", "DIR",
     "also check FILE against the chain head run keeps in DIR (a cut tail, an emptied or"
     " replaced file)",
     kVerify},
    {"--out", "FILE",
     "the audit file to forward, followed through rotation (or output in --config)", kForward},
    {"--state-dir", "DIR", "where the forward position is kept (or state_dir in --config)",
     kForward},
    {"--config", "C", "configuration: forward destinations, output, state_dir", kForward},
    {"--destination", "NAME", "which forward destination of --config (needed when it has several)",
     kForward},
    {"--forward", "URL",
     "forward every entry to relp://, relp+tls://, syslog+tcp:// or syslog+tls:// HOST:PORT"
     " (or forward in --config)",
     kForward | kRun},
    {"--forward-ca", "FILE", "TLS: CA certificate(s) the receiver's certificate must chain to",
     kForward | kRun},
    {"--forward-cert", "FILE", "TLS: client certificate (with --forward-key)", kForward | kRun},
    {"--forward-key", "FILE", "TLS: the client certificate's private key", kForward | kRun},
    {"--forward-format", "F", "message body: rfc5424 (the signed line, default) or cloudevents",
     kForward | kRun},
    {"--until-caught-up", nullptr,
     "exit once every entry in the file is acknowledged (scripts, tests; default: follow)",
     kForward},
    {"--supervisor-pid", "PID",
     "set by run for the forwarders it starts: stop when that process ends (even by kill -9)",
     kForward},
    {"--drop-duplicates", nullptr,
     "a file rebuilt by a receiver: drop entries sent twice (same entry_id and content), allow"
     " a new chain per rotated audit file",
     kVerify},
    {"--format", "F", "envelope: cloudevents (the only one, the default)", kExport},
    {"--metrics-file", "PATH",
     "Prometheus text file, rewritten atomically every --metrics-interval (or metrics_file in"
     " --config)",
     kRun},
    {"--metrics-interval", "SECONDS",
     "seconds between metrics writes, 1-3600 (default 15; or metrics_interval in --config)", kRun},
    {"--state-dir", "DIR", "the state directory of the run daemon to report on", kStatus},
    {"--keys", nullptr, "list every configuration key with its type and help, then exit",
     kCheckConfig},
};
constexpr size_t kOptionCount = sizeof kOptions / sizeof kOptions[0];

struct Command {
  const char* name;
  unsigned bit;  // its options: the rows of kOptions with this bit
  const char* usage;
  const char* help;
  int (*handler)(const cli_args::ParsedArgs& args);
};

const Command kCommands[] = {
    {"import", kImport, "import --key-file K --out FILE [--sandbox-id ID | --config C] LOG...",
     "append one signed audit entry per valid record of each LOG", import_command::Import},
    {"validate", kValidate, "validate [--config C] LOG...",
     "check every line of each LOG, write nothing", import_command::Validate},
    {"verify", kVerify, "verify --key-file K [--state-dir DIR] [--drop-duplicates] FILE",
     "check an audit file's hash chain, content hashes and signatures", verify_command::Verify},
    {"check-config", kCheckConfig, "check-config [--keys] C",
     "check a configuration file (closed vocabulary, lint warnings)",
     check_config_command::CheckConfig},
    {"run", kRun,
     "run --key-file K --out FILE [--state-dir DIR --watch PATTERN...]\n"
     "                     [--listen PATH (--shim PATH | --shim-sha256 HEX) [--cgroup-pattern "
     "REGEX]\n"
     "                      [--alone-sync-under US]]\n"
     "                     [--config C] [--syslog-socket PATH] [--scan-interval MS] [--new-chain]\n"
     "                     [--no-append-only] [--forward URL ...]\n"
     "                     [--metrics-file PATH [--metrics-interval SECONDS]]",
     "tail every sandbox log matching PATTERN, and serve the attested socket, into the audit"
     " file, exactly once",
     run_command::Run},
    {"forward", kForward,
     "forward --out FILE --state-dir DIR (--forward URL [--forward-ca F] [--forward-cert F\n"
     "                     --forward-key F] | --config C [--destination NAME]) "
     "[--until-caught-up]\n"
     "                     [--supervisor-pid PID]",
     "send every entry of the audit file, in order and at least once, to a log receiver",
     forward_command::Forward},
    {"export", kExport, "export [--format cloudevents] FILE",
     "write each entry of an audit file as a CloudEvents 1.0 envelope, one per line",
     export_command::Export},
    {"status", kStatus, "status --state-dir DIR",
     "what a run daemon is doing (sources, lag, last entry, last error), from its state"
     " directory; never touches the daemon",
     status_command::Status},
    {"keygen", kKeygen, "keygen --out FILE",
     "write a new random 32-byte HMAC key to FILE (never printed, never overwritten)",
     keygen_command::Keygen},
};

void PrintUsage(FILE* out) {
  fprintf(out, "usage: agt-collector COMMAND [OPTION...] [ARG...]\n\ncommands:\n");
  for (const Command& c : kCommands) fprintf(out, "  %-14s %s\n", c.name, c.help);
  fprintf(out,
          "\n  agt-collector COMMAND --help   options of COMMAND\n"
          "  agt-collector --version\n\n"
          "exit status: 0 ok, 1 verification failed, 64 usage, 65 rejected input lines\n"
          "(run: the audit file was tampered with),\n"
          "66 input missing, 70 internal error, 73 cannot create output, 74 I/O error,\n"
          "78 bad configuration.\n"
          "See agt-collector(1) and agt-audit-jsonl(5).\n");
}

// --help (to stdout, with the help line) and after a usage error (to stderr):
// the same usage line and option table.
void PrintCommandUsage(const Command& c, FILE* out, bool with_help) {
  fprintf(out, "usage: agt-collector %s\n", c.usage);
  if (with_help) fprintf(out, "%s\n", c.help);
  const std::string options = cli_args::OptionsHelp(kOptions, kOptionCount, c.bit);
  if (!options.empty()) fprintf(out, "\noptions:\n%s", options.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    PrintUsage(stderr);
    return exit_status::kUsage;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    PrintUsage(stdout);
    return exit_status::kOk;
  }
  if (name == "--version") {
    printf("agt-collector %s\n", collector_version::kVersion);
    return exit_status::kOk;
  }
  for (const Command& c : kCommands) {
    if (name != c.name) continue;
    logs::SetCommand(c.name);
    for (int i = 2; i < argc; ++i) {
      if (strcmp(argv[i], "--") == 0) break;
      if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
        PrintCommandUsage(c, stdout, true);
        return exit_status::kOk;
      }
    }
    cli_args::ParsedArgs args;
    std::string err;
    int status = exit_status::kUsage;
    if (cli_args::Parse(argc, argv, 2, kOptions, kOptionCount, c.bit, &args, &err)) {
      status = c.handler(args);  // says why itself when it returns kUsage
    } else {
      logs::Error(err);
    }
    if (status == exit_status::kUsage) PrintCommandUsage(c, stderr, false);
    return status;
  }
  logs::Error("unknown command \"" + name + "\" (see agt-collector --help)");
  return exit_status::kUsage;
}
