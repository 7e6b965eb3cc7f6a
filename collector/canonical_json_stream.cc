#include "canonical_json_stream.h"

#include <algorithm>

#include "canonical_json.h"

namespace canonical_json {

void StreamWriter::Reset() {
  out_.clear();
  keys_.clear();
  members_.clear();
  levels_.clear();
  skip_depth_ = 0;
  result_ = kNone;
  done_ = false;
}

bool StreamWriter::TooDeep() const { return levels_.size() > static_cast<size_t>(kMaxDepth); }

void StreamWriter::BeforeValue() {
  if (levels_.empty()) return;
  Level& l = levels_.back();
  if (!l.object && l.items++ > 0) out_.append(", ");
}

void StreamWriter::AfterValue(Error error) {
  if (levels_.empty()) {
    result_ = error;
    done_ = true;
    return;
  }
  Level& l = levels_.back();
  if (l.object) {
    members_.back().value_end = static_cast<uint32_t>(out_.size());
    members_.back().error = error;
  } else if (l.error == kNone) {
    l.error = error;
  }
}

void StreamWriter::Fail(Error error) {
  if (skip_depth_ > 0) return;
  BeforeValue();
  AfterValue(error);
}

void StreamWriter::Scalar(std::string_view text) {
  if (skip_depth_ > 0) return;
  if (TooDeep()) return Fail(kTooDeep);
  BeforeValue();
  out_.append(text);
  AfterValue(kNone);
}

void StreamWriter::Int64(int64_t i) {
  if (skip_depth_ > 0) return;
  if (TooDeep()) return Fail(kTooDeep);
  BeforeValue();
  AppendInt(i, &out_);
  AfterValue(kNone);
}

void StreamWriter::Uint64(uint64_t u) {
  if (skip_depth_ > 0) return;
  if (TooDeep()) return Fail(kTooDeep);
  BeforeValue();
  AppendUint(u, &out_);
  AfterValue(kNone);
}

void StreamWriter::String(std::string_view s) {
  if (skip_depth_ > 0) return;
  if (TooDeep()) return Fail(kTooDeep);
  BeforeValue();
  AfterValue(AppendString(s, &out_) ? kNone : kBadString);
}

void StreamWriter::StartObject() {
  if (skip_depth_ > 0 || TooDeep()) {
    // Too deep: refused as a whole, its contents only counted.
    if (skip_depth_++ == 0) BeforeValue();
    return;
  }
  BeforeValue();
  levels_.push_back({true, static_cast<uint32_t>(out_.size()),
                     static_cast<uint32_t>(members_.size()), static_cast<uint32_t>(keys_.size()), 0,
                     kNone});
  out_.push_back('{');
}

void StreamWriter::StartArray() {
  if (skip_depth_ > 0 || TooDeep()) {
    if (skip_depth_++ == 0) BeforeValue();
    return;
  }
  BeforeValue();
  levels_.push_back({false, static_cast<uint32_t>(out_.size()), 0, 0, 0, kNone});
  out_.push_back('[');
}

void StreamWriter::Key(std::string_view k) {
  if (skip_depth_ > 0) return;
  Level& l = levels_.back();
  if (l.items++ > 0) out_.append(", ");
  Member m;
  m.key_begin = static_cast<uint32_t>(keys_.size());
  m.key_size = static_cast<uint32_t>(k.size());
  keys_.append(k);
  m.text_begin = static_cast<uint32_t>(out_.size());
  m.bad_key = !AppendString(k, &out_);
  out_.append(": ");
  m.value_end = static_cast<uint32_t>(out_.size());
  m.error = kNone;
  members_.push_back(m);
}

StreamWriter::Error StreamWriter::SortMembers(const Level& level) {
  const uint32_t first = level.members_begin;
  const uint32_t count = static_cast<uint32_t>(members_.size()) - first;
  // Objects written by this project arrive sorted: then the text is in place.
  bool in_order = true;
  for (uint32_t i = first; i < first + count; ++i) {
    const Member& m = members_[i];
    if (m.bad_key || m.error != kNone || (i > first && !(KeyOf(members_[i - 1]) < KeyOf(m)))) {
      in_order = false;
      break;
    }
  }
  if (in_order) return kNone;
  order_.resize(count);
  for (uint32_t i = 0; i < count; ++i) order_[i] = first + i;
  std::stable_sort(order_.begin(), order_.end(),
                   [&](uint32_t a, uint32_t b) { return KeyOf(members_[a]) < KeyOf(members_[b]); });
  scratch_.assign(1, '{');
  for (uint32_t k = 0; k < count; ++k) {
    const Member& m = members_[order_[k]];
    if (k > 0) {
      if (KeyOf(m) == KeyOf(members_[order_[k - 1]])) return kDuplicateKey;
      scratch_.append(", ");
    }
    if (m.bad_key) return kBadKey;
    if (m.error != kNone) return m.error;
    scratch_.append(out_, m.text_begin, m.value_end - m.text_begin);
  }
  out_.resize(level.out_begin);
  out_.append(scratch_);
  return kNone;
}

void StreamWriter::EndObject() {
  if (skip_depth_ > 0) {
    if (--skip_depth_ == 0) AfterValue(kTooDeep);
    return;
  }
  const Level level = levels_.back();
  const Error error = SortMembers(level);
  out_.push_back('}');
  members_.resize(level.members_begin);
  keys_.resize(level.keys_begin);
  levels_.pop_back();
  AfterValue(error);
}

void StreamWriter::EndArray() {
  if (skip_depth_ > 0) {
    if (--skip_depth_ == 0) AfterValue(kTooDeep);
    return;
  }
  const Error error = levels_.back().error;
  out_.push_back(']');
  levels_.pop_back();
  AfterValue(error);
}

std::string StreamWriter::Describe(Error e) {
  switch (e) {
    case kNone: break;
    case kNonInteger: return "non-integer number";
    case kBadString: return "string is not valid UTF-8";
    case kDuplicateKey: return "duplicate key";
    case kBadKey: return "key is not valid UTF-8";
    case kTooDeep: return "nesting deeper than " + std::to_string(kMaxDepth) + " levels";
  }
  return "";
}

bool StreamWriter::Finish(std::string* text, std::string* err) const {
  if (!done_) {
    *err = "the value did not end";
    return false;
  }
  if (result_ != kNone) {
    *err = Describe(result_);
    return false;
  }
  if (text != nullptr) text->assign(out_);
  return true;
}

}  // namespace canonical_json
