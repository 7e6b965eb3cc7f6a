// Per-source read positions that survive a crash: their text, kept by the
// run mode in the checkpoint journal (checkpoint_journal.h), and one small
// file per key (forward's position; the run mode's before the journal),
// replaced atomically (temp file, fsync, rename, fsync of the directory).
// A checkpoint names the file by device and inode and carries a SHA-256 of
// the bytes just before its offset, so a resume can tell "the same file,
// grown" from "truncated", "copytruncated and regrown" or "another file
// that reused the inode".
#ifndef AGT_COLLECTOR_TAIL_CHECKPOINT_STORE_H_
#define AGT_COLLECTOR_TAIL_CHECKPOINT_STORE_H_

#include <stdint.h>

#include <string>
#include <string_view>
#include <vector>

#include "file_id.h"
#include "tail/line_reader.h"
#include "tail/sandbox_quota.h"

namespace checkpoint_store {

// How many bytes before the offset the hash covers (fewer near the start).
constexpr uint32_t kHashWindow = 4096;
// The same for a log that held FS_APPEND_FL when it was read: the kernel
// then refuses the sandbox any truncation or rewrite of what was read
// (tail_engine_source.cc, ValidateStillSame), so the hash only has to tell
// this file from another that reused its inode after an operator's rotation
// or removal, and the last 512 bytes (a shim record and more) do; SHA-256
// of 4 KiB per look was the largest share of the run mode's CPU under load
// (no SHA extensions here). hash_len records which window a checkpoint used,
// and StillValid hashes that many bytes.
constexpr uint32_t kAppendOnlyHashWindow = 512;
// The window for a checkpoint at `offset` of a log (append-only held or not).
inline uint32_t HashWindowAt(uint64_t offset, bool append_only_held) {
  const uint32_t window = append_only_held ? kAppendOnlyHashWindow : kHashWindow;
  return offset < window ? static_cast<uint32_t>(offset) : window;
}

// One value: where reading a file resumes, and how to know it is the same file.
struct Checkpoint {
  file_id::FileId file;
  line_reader::Position position;
  uint32_t hash_len = 0;     // bytes hashed: HashWindowAt(position.offset, ...)
  std::string sha256_hex;    // of bytes [position.offset - hash_len, position.offset)
  sandbox_quota::Held held;  // lines read up to here past the quota, not yet summarised
  // The audit file and its durable size when this checkpoint was written.
  // Entries are durable before the checkpoints that cover them, so an entry
  // for a line past `position` can only lie at or after audit_size in that
  // file: a restart skips the entries of this source from there on, however
  // many restarts ago the checkpoint was written. has_audit is false in a
  // checkpoint from before this field (then: the whole file).
  bool has_audit = false;
  file_id::FileId audit_file;
  uint64_t audit_size = 0;
  // Earlier files of this log read and let go (rotated away), and where
  // reading each stopped: one that a writer still holding it appends to
  // after a restart is read on from there, not from its start.
  struct Gone {
    file_id::FileId file;
    uint64_t offset = 0;
  };
  std::vector<Gone> gone;  // at most kGoneKept
  // When it was written (CLOCK_REALTIME, ns; 0: not said, then the
  // KEY.checkpoint file's mtime): a log rotated away with an mtime past it
  // holds lines written after it, never read (UnreadSiblings). The journal
  // (checkpoint_journal.h) has no file per checkpoint to take it from.
  int64_t written_ns = 0;
};
constexpr size_t kGoneKept = 4;

enum class LoadResult { kLoaded, kNone, kCorrupt, kError };

// state_dir_fd: an O_DIRECTORY fd; key: a validated source name
// ([A-Za-z0-9._-], no "." or ".."), stored as KEY.checkpoint.
LoadResult Load(int state_dir_fd, const std::string& key, Checkpoint* out, std::string* err);
bool Save(int state_dir_fd, const std::string& key, const Checkpoint& c, std::string* err);
// The same in parts, for a store that keeps checkpoints elsewhere (the
// journal, checkpoint_journal.h): Text is one checkpoint's line, ending in
// '\n', as KEY.checkpoint holds it after its magic; LoadText reads that
// line from KEY.checkpoint; Parse reads one back (`name` names it in *err).
std::string Text(const Checkpoint& c);
LoadResult LoadText(int state_dir_fd, const std::string& key, std::string* text, std::string* err);
LoadResult Parse(const std::string& name, const std::string& text, Checkpoint* out,
                 std::string* err);
// Save() in two steps, for batches: Stage() writes KEY.checkpoint.tmp (and
// fsyncs it when sync_file); Publish() swaps it with KEY.checkpoint
// (renameat2 RENAME_EXCHANGE; a plain rename for the first one), so the
// previous checkpoint stays behind as KEY.checkpoint.tmp, never read, and
// is overwritten by the next Stage(): no inode is freed or allocated per
// checkpoint. (The run mode's checkpoints are in the journal now; forward
// keeps its position in a file of its own, through Save.)
//
// sizes (optional): what this process knows of the two files' sizes, kept
// by the caller per key from one Stage/Publish to the next. Stage then
// needs no fstat to learn whether the previous body, longer, must be cut
// (one system call less per checkpoint); Publish swaps the two as it swaps
// the files.
struct FileSizes {
  int64_t tmp = -1;        // KEY.checkpoint.tmp; -1: not known (fstat)
  int64_t published = -1;  // KEY.checkpoint
};
bool Stage(int state_dir_fd, const std::string& key, const Checkpoint& c, bool sync_file,
           std::string* err, FileSizes* sizes = nullptr);
bool Publish(int state_dir_fd, const std::string& key, std::string* err,
             FileSizes* sizes = nullptr);
// The keys of every KEY.checkpoint in the state directory.
bool ListKeys(int state_dir_fd, std::vector<std::string>* keys, std::string* err);
// One fsync of the directory after a batch of renames makes them durable.
bool SyncDirectory(int state_dir_fd, std::string* err);

// Any small state file (at most 1023 bytes): ReadStateFile reads NAME,
// which must start with `magic` and end with '\n', into *body (what
// follows the magic); kNone when there is no such file, kCorrupt (*err)
// for anything else. StageFile writes `body` to `tmp` (fsynced when
// sync_file); PublishFile puts NAME.tmp in NAME's place: swapped with it
// (renameat2 RENAME_EXCHANGE, *swapped true) when `swap` and both exist on
// a filesystem that can, else renamed over it; ReplaceDurably stages
// NAME.tmp, publishes it and fsyncs the directory (the chain head,
// chain_head.h). known_size: the size `tmp` has now, when the caller knows
// it (-1: fstat).
LoadResult ReadStateFile(int state_dir_fd, const std::string& name, const char* magic,
                         std::string* body, std::string* err);
bool StageFile(int state_dir_fd, const std::string& tmp, const std::string& body, bool sync_file,
               std::string* err, int64_t known_size = -1);
inline std::string TmpName(const std::string& name) { return name + ".tmp"; }
bool PublishFile(int state_dir_fd, const std::string& name, bool swap, std::string* err,
                 bool* swapped = nullptr);
bool ReplaceDurably(int state_dir_fd, const std::string& name, const std::string& body,
                    std::string* err);
static_assert(kHashWindow == line_reader::kTailWindow, "the reader keeps the hash window");

// The hash of bytes already in hand, first then second (the two parts of
// line_reader::Reader::TailBefore: what was read, which a later rewrite of
// the file cannot change).
void HashBytes(std::string_view first, std::string_view second, uint32_t* hash_len,
               std::string* sha256_hex);
// The hex SHA-256 of `bytes` (the state files' own hashes: journal frames,
// chain head slots).
std::string Sha256Hex(std::string_view bytes);

// Fills hash_len and sha256_hex for `offset` of fd: the min(offset, window)
// bytes before it.
bool HashBefore(int fd, uint64_t offset, uint32_t* hash_len, std::string* sha256_hex,
                std::string* err, uint32_t window = kHashWindow);

// Whether reading fd from c.position continues the same byte stream (the
// c.hash_len bytes before it hash as they did: either window). On false,
// *why says what changed, with sizes (the caller starts over from 0).
bool StillValid(int fd, const Checkpoint& c, std::string* why);

}  // namespace checkpoint_store

#endif  // AGT_COLLECTOR_TAIL_CHECKPOINT_STORE_H_
