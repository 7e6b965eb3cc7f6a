#include "forward/forward_lag.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "tail/checkpoint_store.h"

namespace forward_lag {

std::string PositionKey(const std::string& destination) { return "forward." + destination; }

Lag Counter::Measure(int state_dir_fd, const std::string& destination, int audit_fd,
                     const chain_head::ChainHead& head) {
  checkpoint_store::Checkpoint c;
  std::string err;
  Lag lag;
  uint64_t from = 0;
  if (checkpoint_store::Load(state_dir_fd, PositionKey(destination), &c, &err) ==
      checkpoint_store::LoadResult::kLoaded) {
    if (c.file == head.file) {
      from = std::min(c.position.offset, head.size);
    } else {
      lag.known = false;  // still on a rotated file: all of this one is ahead of it
    }
  }
  lag.bytes = head.size - from;
  lag.entries = from == 0 ? head.entries : CountLines(audit_fd, from, head.size);
  return lag;
}

uint64_t Counter::CountLines(int fd, uint64_t from, uint64_t to) {
  // The same file as last time, its position and end only moved on: count
  // what is new at the end, and what was acknowledged at the start.
  struct stat st;
  const uint64_t ino = fstat(fd, &st) == 0 ? static_cast<uint64_t>(st.st_ino) : 0;
  const auto count = [fd](uint64_t a, uint64_t b) {
    uint64_t n = 0;
    char buf[64 * 1024];
    while (a < b) {
      const ssize_t r =
          pread(fd, buf, std::min<uint64_t>(sizeof buf, b - a), static_cast<off_t>(a));
      if (r <= 0) break;
      n += static_cast<uint64_t>(std::count(buf, buf + r, '\n'));
      a += static_cast<uint64_t>(r);
    }
    return n;
  };
  if (ino != 0 && ino == ino_ && from >= from_ && from <= to_ && to >= to_) {
    lines_ = lines_ - count(from_, from) + count(to_, to);
  } else {
    lines_ = count(from, to);
  }
  ino_ = ino;
  from_ = from;
  to_ = to;
  return lines_;
}

}  // namespace forward_lag
