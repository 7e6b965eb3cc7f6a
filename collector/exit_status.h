// Exit statuses of agt-collector (sysexits.h values; agt-collector(1) lists them).
#ifndef AGT_COLLECTOR_EXIT_STATUS_H_
#define AGT_COLLECTOR_EXIT_STATUS_H_

namespace exit_status {

constexpr int kOk = 0;
constexpr int kVerifyFailed = 1;  // verify: the chain or a signature is broken
constexpr int kUsage = 64;        // EX_USAGE: bad command line
constexpr int kDataErr = 65;      // EX_DATAERR: some input lines were rejected
constexpr int kTampered = 65;     // run: the audit file was tampered with (refused to extend it)
constexpr int kNoInput = 66;      // EX_NOINPUT: an input file cannot be opened
constexpr int kSoftware = 70;     // EX_SOFTWARE: internal error (e.g. OpenSSL)
constexpr int kCantCreate = 73;   // EX_CANTCREAT: keygen: the key file exists or cannot be made
constexpr int kIoErr = 74;        // EX_IOERR: reading or writing failed
constexpr int kTempFail =
    75;  // EX_TEMPFAIL: forward: another forwarder holds the destination, or run has ended
constexpr int kConfig = 78;  // EX_CONFIG: bad configuration or key file

}  // namespace exit_status

#endif  // AGT_COLLECTOR_EXIT_STATUS_H_
