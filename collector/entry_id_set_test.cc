#include "entry_id_set.h"

#include <random>
#include <set>
#include <string>

#include <doctest/doctest.h>

#include "hex.h"

namespace {

std::string IdOf(uint64_t key) {
  unsigned char bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<unsigned char>(key >> (56 - 8 * i));
  return "audit_" + hex::Encode(bytes, sizeof bytes);
}

}  // namespace

TEST_CASE("entry_id_set: an id's key is the number its 16 digits spell, as the digest begins") {
  uint64_t key = 1;
  REQUIRE(entry_id_set::KeyOf("audit_0123456789abcdef", &key));
  CHECK(key == 0x0123456789abcdefu);
  REQUIRE(entry_id_set::KeyOf("audit_0000000000000000", &key));
  CHECK(key == 0);
  REQUIRE(entry_id_set::KeyOf("audit_ffffffffffffffff", &key));
  CHECK(key == UINT64_MAX);
  const unsigned char digest[8] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};
  CHECK(entry_id_set::KeyOfDigest(digest) == 0x0123456789abcdefu);
  // What chain_signer derives: "audit_" + the hex of the digest's first 8 bytes.
  CHECK(IdOf(entry_id_set::KeyOfDigest(digest)) == "audit_0123456789abcdef");
}

TEST_CASE("entry_id_set: text a derived id never is has no key and is never held") {
  entry_id_set::EntryIdSet set;
  for (const char* text :
       {"", "audit_", "audit_0123456789abcde", "audit_0123456789abcdef0", "audit_0123456789ABCDEF",
        "audit_0123456789abcdeg", "Audit_0123456789abcdef", "audit-0123456789abcdef",
        "audit_ 123456789abcdef", "x"}) {
    uint64_t key = 0;
    CAPTURE(text);
    CHECK_FALSE(entry_id_set::KeyOf(text, &key));
    CHECK_FALSE(set.Insert(text));
    CHECK_FALSE(set.Contains(text));
    CHECK_FALSE(set.Erase(text));
  }
  CHECK(set.empty());
  // The lower-case spelling of one of them is an id like any other.
  CHECK(set.Insert("audit_0123456789abcdef"));
  CHECK_FALSE(set.Contains("audit_0123456789ABCDEF"));
  CHECK(set.Contains("audit_0123456789abcdef"));
}

TEST_CASE("entry_id_set: insert, find and erase, the all-zero and all-ones ids included") {
  entry_id_set::EntryIdSet set;
  CHECK_FALSE(set.Contains("audit_0000000000000000"));
  CHECK_FALSE(set.Erase("audit_0000000000000000"));
  CHECK(set.Insert("audit_0000000000000000"));
  CHECK(set.Insert("audit_ffffffffffffffff"));
  CHECK_FALSE(set.Insert("audit_ffffffffffffffff"));
  CHECK(set.Insert("audit_00000000000000ff"));
  CHECK_FALSE(set.Insert("audit_0000000000000000"));
  CHECK(set.size() == 3);
  CHECK(set.Contains("audit_0000000000000000"));
  CHECK(set.Contains("audit_ffffffffffffffff"));
  CHECK(set.Erase("audit_ffffffffffffffff"));
  CHECK_FALSE(set.Contains("audit_ffffffffffffffff"));
  CHECK_FALSE(set.Erase("audit_ffffffffffffffff"));
  CHECK(set.Erase("audit_0000000000000000"));
  CHECK(set.size() == 1);
  CHECK(set.Contains("audit_00000000000000ff"));
  CHECK(set.ContainsKey(0xff));
  CHECK(set.EraseKey(0xff));
  CHECK(set.empty());
}

TEST_CASE("entry_id_set: random inserts and erases agree with std::set at every step") {
  // A small universe of keys keeps the table crowded (long runs, runs that
  // wrap around its end), where the backward shift of an erase has work
  // to do; the large one makes it grow.
  for (const uint64_t universe : {uint64_t{24}, uint64_t{4096}, uint64_t{0}}) {
    CAPTURE(universe);
    std::mt19937_64 random(universe + 7);
    entry_id_set::EntryIdSet set;
    std::set<uint64_t> model;
    for (int step = 0; step < 60000; ++step) {
      const uint64_t key = universe == 0 ? random() : random() % universe;
      const std::string id = IdOf(key);
      switch (random() % 3) {
        case 0: REQUIRE(set.Insert(id) == model.insert(key).second); break;
        case 1: REQUIRE(set.Erase(id) == (model.erase(key) == 1)); break;
        default: REQUIRE(set.Contains(id) == (model.count(key) == 1)); break;
      }
      REQUIRE(set.size() == model.size());
    }
    for (uint64_t key : model) REQUIRE(set.ContainsKey(key));
    for (uint64_t key : model) REQUIRE(set.EraseKey(key));
    CHECK(set.empty());
  }
}

TEST_CASE("entry_id_set: ids that share their low bits are held apart and found") {
  // What a sandbox grinding its records for colliding ids could send: the
  // set's seeded mix spreads them, and each is still found and erased.
  entry_id_set::EntryIdSet set;
  for (uint64_t i = 0; i < 20000; ++i) REQUIRE(set.InsertKey(i << 40));
  CHECK(set.size() == 20000);
  for (uint64_t i = 0; i < 20000; i += 2) REQUIRE(set.EraseKey(i << 40));
  for (uint64_t i = 0; i < 20000; ++i) REQUIRE(set.ContainsKey(i << 40) == (i % 2 == 1));
}
