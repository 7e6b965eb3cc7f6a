// A set of entry ids ("audit_" + 16 lowercase hex digits, chain_signer.h),
// each held as the 64-bit number its digits spell: the ids written before a
// crash that must not be written again, and those this run wrote. A derived
// id is looked up at every entry the collector signs, so the set is one
// flat array (open addressing, linear probing, deletion by backward shift):
// no string, no node, no allocation per id, one cache line per look in the
// usual case. Text of any other form is never an id the collector derives,
// so it is never held (Insert says so) and never found.
//
// The ids come from SHA-256 over text the sandbox controls; a sandbox could
// grind records whose ids share their low bits to pile them into one run of
// slots. The slot is taken from the id mixed with a seed from getrandom(2),
// drawn per set, which such grinding cannot know.
#ifndef AGT_COLLECTOR_ENTRY_ID_SET_H_
#define AGT_COLLECTOR_ENTRY_ID_SET_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace entry_id_set {

// The number an id's 16 hex digits spell; false for text that is not
// "audit_" + 16 lowercase hex digits.
bool KeyOf(std::string_view id, uint64_t* key);
// The same number from the digest the id is derived from (its first 8 bytes).
uint64_t KeyOfDigest(const unsigned char digest[8]);

class EntryIdSet {
 public:
  EntryIdSet();

  // True when the id was added; false when it was there already or is not
  // of the derived form (then nothing is held).
  bool Insert(std::string_view id);
  bool Contains(std::string_view id) const;
  // True when the id was there (it is taken out).
  bool Erase(std::string_view id);

  // The same by number.
  bool InsertKey(uint64_t key);
  bool ContainsKey(uint64_t key) const;
  bool EraseKey(uint64_t key);

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  size_t SlotOf(uint64_t key) const;
  // Where `key` is, or the empty slot where it would go.
  size_t Find(uint64_t key, bool* found) const;
  void Grow();

  uint64_t seed_;
  // Slots hold key + 1 (0: empty), so that the id of all zero digits is held
  // like any other; the key all ones has no slot value left and is kept
  // beside them.
  std::vector<uint64_t> slots_;
  bool has_max_key_ = false;
  size_t size_ = 0;
};

}  // namespace entry_id_set

#endif  // AGT_COLLECTOR_ENTRY_ID_SET_H_
