// Which executable a socket peer runs, and whether it is the shim: the
// operator names the shim (--shim PATH, whose content is hashed once at
// start, or --shim-sha256 HEX); a peer's executable is hashed once per file
// identity (device, inode, size, mtime, ctime), not once per denial.
#ifndef AGT_COLLECTOR_LISTEN_EXE_IDENTITY_H_
#define AGT_COLLECTOR_LISTEN_EXE_IDENTITY_H_

#include <stdint.h>
#include <sys/stat.h>

#include <string>
#include <unordered_map>

namespace exe_identity {

// Executables larger than this are not hashed (not the shim: it is some
// 120 KB, 64 MiB leaves room for sanitized test builds); a hostile peer
// cannot make the collector read gigabytes.
constexpr int64_t kMaxHashedBytes = 64 << 20;

// How much one container's peers may have hashed: a bucket of bytes that
// refills at kBytesPerSecond up to that much. Hashing runs on the run
// loop's thread, and a sandbox can make each of its executables a new
// identity (a fresh copy, or a chmod every second keeps it "changed just
// now"), so without a bound one container could keep the loop hashing and
// every other container waiting. The genuine shim's hash is cached once
// settled, so the budget is spent only by what is new.
class HashBudget {
 public:
  // At least kMaxHashedBytes: any file that may be hashed fits a full bucket.
  static constexpr int64_t kBytesPerSecond = kMaxHashedBytes;
  // Adds what accrued since the last refill (`now_ms`, monotonic).
  void Refill(int64_t now_ms);
  // Takes `bytes` when the bucket holds them.
  bool Take(int64_t bytes);
  int64_t bytes() const { return bytes_; }

 private:
  int64_t bytes_ = kBytesPerSecond;
  int64_t refilled_ms_ = -1;  // -1: never (the bucket starts full)
};

// A file as the kernel names it: a changed file has another identity.
struct Identity {
  uint64_t dev = 0, ino = 0;
  int64_t size = 0, mtime_ns = 0, ctime_ns = 0;
  static Identity Of(const struct stat& st);
  bool operator==(const Identity& o) const {
    return dev == o.dev && ino == o.ino && size == o.size && mtime_ns == o.mtime_ns &&
           ctime_ns == o.ctime_ns;
  }
};

// SHA-256 (64 lowercase hex digits) of the whole file open at `fd`, which
// was stated `size` bytes long: no more is read (a file that grew since,
// e.g. a sparse gigabyte appended, is an error, not a long read).
bool Sha256OfFile(int fd, int64_t size, std::string* hex, std::string* err);

// What the genuine shim is.
class ShimReference {
 public:
  // Hashes the file at `path` (opened without following a symlink in its last
  // component is not required: the operator names it).
  bool FromFile(const std::string& path, std::string* err);
  // 64 hex digits (either case).
  bool FromHex(const std::string& hex, std::string* err);
  const std::string& sha256() const { return sha256_; }
  // -1 when only the hash is known.
  int64_t size() const { return size_; }

 private:
  std::string sha256_;
  int64_t size_ = -1;
};

// The hashes of executables seen, by identity. Bounded: cleared when full.
// With only the shim's hash given (--shim-sha256), its size is learnt from
// the first executable that has that hash: from then on, as with --shim,
// a file of another size is not read.
// An identity names the content only if no write can keep it: a write
// within the filesystem's timestamp tick after the hash could leave size,
// mtime and ctime as they were (ctime cannot be set from user space, but a
// tick is coarse). So a file changed less than kSettledNs before it is
// hashed is hashed again each time, never served from the cache.
class HashCache {
 public:
  explicit HashCache(const ShimReference* shim) : shim_(shim), shim_size_(shim->size()) {}
  enum class Result {
    kKnown,       // *hex: the SHA-256, or empty when the file cannot be the
                  // shim (its size is not the shim's, or over kMaxHashedBytes)
    kOverBudget,  // not read: *budget holds less than the file's size
    kUnreadable,  // *err says why
  };
  // The SHA-256 of the executable open at `fd`, its reading paid from
  // *budget. `now_ns`: CLOCK_REALTIME now (the clock ctime is taken from).
  Result Sha256(int fd, const Identity& id, int64_t now_ns, HashBudget* budget, std::string* hex,
                std::string* err);
  // The hash Sha256 would give from the cache, without a descriptor: true
  // when `id` is cached (the caller opens the file only when it is not).
  bool Cached(const Identity& id, std::string* hex) const;
  static constexpr int64_t kSettledNs = 2'000'000'000;
  uint64_t hashed() const { return hashed_; }  // files read (cache misses)
  // The shim's size: given (--shim) or learnt; -1 while unknown.
  int64_t shim_size() const { return shim_size_; }

 private:
  struct Hash {
    size_t operator()(const Identity& id) const {
      return std::hash<uint64_t>()(id.dev * 1000003u ^ id.ino ^
                                   static_cast<uint64_t>(id.mtime_ns) * 31u);
    }
  };
  static constexpr size_t kMaxEntries = 4096;
  const ShimReference* shim_;
  int64_t shim_size_;
  std::unordered_map<Identity, std::string, Hash> cache_;
  uint64_t hashed_ = 0;
};

}  // namespace exe_identity

#endif  // AGT_COLLECTOR_LISTEN_EXE_IDENTITY_H_
