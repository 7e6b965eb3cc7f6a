// canonical_json::AppendValue for a value that arrives as RapidJSON SAX
// events instead of a value tree: the verifier canonicalises each entry's
// "data" while parsing the line once, with no DOM per line. Same output
// byte for byte and the same refusal (the first error in sorted key order,
// as AppendValue walks it), so a broken line reads the same either way.
//
// Objects are sorted as they end: each member's canonical text is written
// into one buffer as it arrives, and at the object's end its members are
// put in key order; arrays need no reordering. Buffers are reused.
#ifndef AGT_COLLECTOR_CANONICAL_JSON_STREAM_H_
#define AGT_COLLECTOR_CANONICAL_JSON_STREAM_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace canonical_json {

class StreamWriter {
 public:
  // Starts a new value (drops whatever the last one left).
  void Reset();

  // The SAX events of one value, as rapidjson::Reader reports them.
  void Null() { Scalar("null"); }
  void Bool(bool b) { Scalar(b ? "true" : "false"); }
  void Int64(int64_t i);
  void Uint64(uint64_t u);
  void Double() { Fail(kNonInteger); }
  void String(std::string_view s);
  void StartObject();
  void Key(std::string_view k);
  void EndObject();
  void StartArray();
  void EndArray();

  // Once the value has ended: its canonical text, or false with *err set to
  // what AppendValue says for it.
  bool Finish(std::string* text, std::string* err) const;
  std::string_view text() const { return out_; }

 private:
  enum Error : uint8_t { kNone, kNonInteger, kBadString, kDuplicateKey, kBadKey, kTooDeep };
  // An object's member as written: `"key": value` at [text_begin,
  // value_end) of out_, its raw key at [key_begin, +key_size) of keys_.
  struct Member {
    uint32_t key_begin, key_size;
    uint32_t text_begin, value_end;
    bool bad_key;
    Error error;  // the value's
  };
  struct Level {
    bool object;
    uint32_t out_begin;      // where the container's text starts in out_
    uint32_t members_begin;  // in members_ (objects)
    uint32_t keys_begin;     // in keys_ (objects)
    uint32_t items;          // members or elements so far
    Error error;             // an array's first failing element
  };

  void Scalar(std::string_view text);
  bool TooDeep() const;
  void BeforeValue();            // opens the value's slot in its container
  void AfterValue(Error error);  // closes it
  void Fail(Error error);
  // An object's members in key order (by code point = UTF-8 byte order);
  // the first refusal in that order, as AppendValue meets it.
  Error SortMembers(const Level& level);
  std::string_view KeyOf(const Member& m) const {
    return std::string_view(keys_).substr(m.key_begin, m.key_size);
  }
  static std::string Describe(Error e);

  std::string out_;
  std::string keys_;
  std::string scratch_;
  std::vector<Member> members_;
  std::vector<uint32_t> order_;
  std::vector<Level> levels_;
  uint32_t skip_depth_ = 0;  // > 0: inside a container nested too deep
  Error result_ = kNone;
  bool done_ = false;
};

}  // namespace canonical_json

#endif  // AGT_COLLECTOR_CANONICAL_JSON_STREAM_H_
