#include "listen/exe_identity.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <memory>

#include "hex.h"
#include "logs.h"
#include "unique_fd.h"

namespace exe_identity {

Identity Identity::Of(const struct stat& st) {
  Identity id;
  id.dev = st.st_dev;
  id.ino = st.st_ino;
  id.size = st.st_size;
  id.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  id.ctime_ns = static_cast<int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
  return id;
}

bool Sha256OfFile(int fd, int64_t size, std::string* hex, std::string* err) {
  const std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(),
                                                                    EVP_MD_CTX_free);
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) {
    *err = "SHA-256: cannot start a digest";
    return false;
  }
  unsigned char buf[64 * 1024];
  for (off_t at = 0;;) {
    // One byte past `size`, to see a file that grew.
    const size_t want = static_cast<size_t>(std::min<int64_t>(sizeof buf, size + 1 - at));
    const ssize_t n = pread(fd, buf, want, at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *err = std::string("pread: ") + strerror(errno);
      return false;
    }
    if (n == 0) break;
    if (at + n > size) {
      *err = "the file grew past its size while it was hashed";
      return false;
    }
    if (EVP_DigestUpdate(ctx.get(), buf, static_cast<size_t>(n)) != 1) {
      *err = "SHA-256: update failed";
      return false;
    }
    at += n;
  }
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(ctx.get(), md, &len) != 1) {
    *err = "SHA-256: final failed";
    return false;
  }
  *hex = hex::Encode(md, len);
  return true;
}

bool ShimReference::FromFile(const std::string& path, std::string* err) {
  const unique_fd::UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st;
  if (!fd.ok() || fstat(fd.get(), &st) != 0) {
    *err = "--shim: " + logs::ErrnoReason("open", path);
    return false;
  }
  if (!S_ISREG(st.st_mode)) {
    *err = "--shim " + path + ": not a regular file";
    return false;
  }
  if (st.st_size > kMaxHashedBytes) {
    // No peer's executable that large is hashed, so none could match.
    *err = "--shim " + path + ": " + std::to_string(st.st_size) +
           " bytes, more than any executable is hashed for (" +
           std::to_string(kMaxHashedBytes >> 20) + " MiB): not the shim";
    return false;
  }
  if (!Sha256OfFile(fd.get(), st.st_size, &sha256_, err)) {
    *err = "--shim " + path + ": " + *err;
    return false;
  }
  size_ = st.st_size;
  return true;
}

bool ShimReference::FromHex(const std::string& hex, std::string* err) {
  if (hex.size() != 64 || hex.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
    *err = "--shim-sha256: \"" + hex.substr(0, 80) + "\" is not 64 hex digits";
    return false;
  }
  sha256_ = hex;
  for (char& c : sha256_) c = static_cast<char>(c >= 'A' && c <= 'F' ? c - 'A' + 'a' : c);
  size_ = -1;
  return true;
}

bool HashCache::Cached(const Identity& id, std::string* hex) const {
  const auto it = cache_.find(id);
  if (it == cache_.end()) return false;
  *hex = it->second;
  return true;
}

void HashBudget::Refill(int64_t now_ms) {
  if (refilled_ms_ >= 0 && now_ms > refilled_ms_) {
    bytes_ = std::min(kBytesPerSecond, bytes_ + (now_ms - refilled_ms_) * kBytesPerSecond / 1000);
  }
  refilled_ms_ = now_ms;
}

bool HashBudget::Take(int64_t bytes) {
  if (bytes > bytes_) return false;
  bytes_ -= bytes;
  return true;
}

HashCache::Result HashCache::Sha256(int fd, const Identity& id, int64_t now_ns, HashBudget* budget,
                                    std::string* hex, std::string* err) {
  if (Cached(id, hex)) return Result::kKnown;
  hex->clear();
  const bool may_be_shim = id.size <= kMaxHashedBytes && (shim_size_ < 0 || id.size == shim_size_);
  if (may_be_shim) {
    if (!budget->Take(id.size)) return Result::kOverBudget;
    if (!Sha256OfFile(fd, id.size, hex, err)) return Result::kUnreadable;
    ++hashed_;
    // The hash fixes the content, so the size: learnt once.
    if (shim_size_ < 0 && *hex == shim_->sha256()) shim_size_ = id.size;
  }
  if (now_ns - id.ctime_ns < kSettledNs) return Result::kKnown;  // may still change unseen
  if (cache_.size() >= kMaxEntries) cache_.clear();
  cache_.emplace(id, *hex);
  return Result::kKnown;
}

}  // namespace exe_identity
