#include "synced_pages.h"

#include <fcntl.h>

namespace synced_pages {

void SyncedPages::Release(int fd, uint64_t synced_size) {
  if (fd < 0 || synced_size < kKeepBytes) return;
  // Whole steps only: a multiple of every page size, so no page is half in
  // one call and half in the next (the kernel keeps partial pages).
  const uint64_t end = (synced_size - kKeepBytes) / kStepBytes * kStepBytes;
  if (end <= released_) return;
  if (posix_fadvise(fd, static_cast<off_t>(released_), static_cast<off_t>(end - released_),
                    POSIX_FADV_DONTNEED) == 0) {
    released_ = end;
  }
}

}  // namespace synced_pages
