#include "entry_id_set.h"

#include <sys/random.h>
#include <time.h>

namespace entry_id_set {
namespace {

constexpr std::string_view kPrefix = "audit_";
constexpr size_t kDigits = 16;
constexpr size_t kFirstCapacity = 16;
constexpr uint64_t kMaxKey = UINT64_MAX;

// A digit's value, or -1: upper case included, a derived id never has it.
// A table, because every entry the run mode signs is remembered by its id.
struct DigitValues {
  signed char value[256] = {};
  constexpr DigitValues() {
    for (int c = 0; c < 256; ++c) value[c] = -1;
    for (int d = 0; d < 10; ++d) value['0' + d] = static_cast<signed char>(d);
    for (int d = 0; d < 6; ++d) value['a' + d] = static_cast<signed char>(10 + d);
  }
};
constexpr DigitValues kDigitValues;

uint64_t Seed() {
  uint64_t seed = 0;
  if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) == static_cast<ssize_t>(sizeof seed)) {
    return seed;
  }
  // No entropy yet (early boot): the clock still differs from run to run.
  struct timespec ts {};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_nsec) * 0x9e3779b97f4a7c15u ^ static_cast<uint64_t>(ts.tv_sec);
}

// MurmurHash3's 64-bit finaliser: every bit of the seeded key reaches the
// low bits the slot is taken from.
uint64_t Mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdu;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53u;
  x ^= x >> 33;
  return x;
}

}  // namespace

bool KeyOf(std::string_view id, uint64_t* key) {
  if (id.size() != kPrefix.size() + kDigits || id.substr(0, kPrefix.size()) != kPrefix) {
    return false;
  }
  uint64_t k = 0;
  for (size_t i = kPrefix.size(); i < id.size(); ++i) {
    const int d = kDigitValues.value[static_cast<unsigned char>(id[i])];
    if (d < 0) return false;
    k = (k << 4) | static_cast<uint64_t>(d);
  }
  *key = k;
  return true;
}

uint64_t KeyOfDigest(const unsigned char digest[8]) {
  uint64_t k = 0;
  for (int i = 0; i < 8; ++i) k = (k << 8) | digest[i];
  return k;
}

EntryIdSet::EntryIdSet() : seed_(Seed()) {}

bool EntryIdSet::Insert(std::string_view id) {
  uint64_t key = 0;
  return KeyOf(id, &key) && InsertKey(key);
}

bool EntryIdSet::Contains(std::string_view id) const {
  uint64_t key = 0;
  return KeyOf(id, &key) && ContainsKey(key);
}

bool EntryIdSet::Erase(std::string_view id) {
  uint64_t key = 0;
  return KeyOf(id, &key) && EraseKey(key);
}

size_t EntryIdSet::SlotOf(uint64_t key) const {
  return static_cast<size_t>(Mix(key ^ seed_)) & (slots_.size() - 1);
}

size_t EntryIdSet::Find(uint64_t key, bool* found) const {
  size_t i = SlotOf(key);
  // At most half the slots are used: an empty one always ends the run.
  while (slots_[i] != 0 && slots_[i] != key + 1) i = (i + 1) & (slots_.size() - 1);
  *found = slots_[i] != 0;
  return i;
}

bool EntryIdSet::InsertKey(uint64_t key) {
  if (key == kMaxKey) {
    if (has_max_key_) return false;
    has_max_key_ = true;
    ++size_;
    return true;
  }
  if (2 * (size_ + 1) > slots_.size()) Grow();
  bool found = false;
  const size_t i = Find(key, &found);
  if (found) return false;
  slots_[i] = key + 1;
  ++size_;
  return true;
}

bool EntryIdSet::ContainsKey(uint64_t key) const {
  if (key == kMaxKey) return has_max_key_;
  if (slots_.empty()) return false;
  bool found = false;
  Find(key, &found);
  return found;
}

bool EntryIdSet::EraseKey(uint64_t key) {
  if (key == kMaxKey) {
    if (!has_max_key_) return false;
    has_max_key_ = false;
    --size_;
    return true;
  }
  if (slots_.empty()) return false;
  bool found = false;
  size_t hole = Find(key, &found);
  if (!found) return false;
  // Backward shift: a later key of the same run whose home slot is not
  // between the hole and it moves into the hole, so every key stays
  // reachable from its home slot without tombstones.
  const size_t mask = slots_.size() - 1;
  for (size_t j = (hole + 1) & mask; slots_[j] != 0; j = (j + 1) & mask) {
    const size_t home = SlotOf(slots_[j] - 1);
    const bool home_in_gap = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (home_in_gap) continue;
    slots_[hole] = slots_[j];
    hole = j;
  }
  slots_[hole] = 0;
  --size_;
  return true;
}

void EntryIdSet::Grow() {
  std::vector<uint64_t> old;
  old.swap(slots_);
  slots_.assign(old.empty() ? kFirstCapacity : 2 * old.size(), 0);
  for (const uint64_t v : old) {
    if (v == 0) continue;
    bool found = false;
    slots_[Find(v - 1, &found)] = v;
  }
}

}  // namespace entry_id_set
