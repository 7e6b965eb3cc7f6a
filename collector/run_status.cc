#include "run_status.h"

#include <rapidjson/document.h>
#include <rapidjson/writer.h>

#include "metrics.h"

namespace run_status {
namespace {

// RapidJSON's output stream over metrics::Put, a piece at a time.
class PutStream {
 public:
  typedef char Ch;
  explicit PutStream(const metrics::Put& put) : put_(put) { buffer_.reserve(kPiece); }
  void Put(char c) {
    buffer_.push_back(c);
    if (buffer_.size() == kPiece) Flush();
  }
  void Flush() {
    if (!buffer_.empty()) put_(buffer_);
    buffer_.clear();
  }

 private:
  static constexpr size_t kPiece = 64 * 1024;
  const metrics::Put& put_;
  std::string buffer_;
};

using Writer = rapidjson::Writer<PutStream>;

void Key(Writer* w, const char* key) { w->Key(key); }
void Str(Writer* w, const std::string& v) {
  w->String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
}

bool GetInt(const rapidjson::Value& o, const char* key, int64_t* out) {
  const auto it = o.FindMember(key);
  if (it == o.MemberEnd() || !it->value.IsInt64()) return false;
  *out = it->value.GetInt64();
  return true;
}
bool GetString(const rapidjson::Value& o, const char* key, std::string* out) {
  const auto it = o.FindMember(key);
  if (it == o.MemberEnd() || !it->value.IsString()) return false;
  out->assign(it->value.GetString(), it->value.GetStringLength());
  return true;
}

void Render(const Snapshot& s, const ListSources& list_sources, PutStream* out) {
  Writer w(*out);
  w.StartObject();
  Key(&w, "pid");
  w.Int64(s.pid);
  Key(&w, "started");
  w.Int64(s.started_unix);
  Key(&w, "written");
  w.Int64(s.written_unix);
  Key(&w, "stopped");
  w.Bool(s.stopped);
  Key(&w, "exit_status");
  w.Int(s.exit_status);
  Key(&w, "output");
  Str(&w, s.output);
  Key(&w, "sources");
  w.StartArray();
  list_sources([&](const std::string& id, const std::string& log) {
    w.StartObject();
    Key(&w, "sandbox_id");
    Str(&w, id);
    Key(&w, "log");
    Str(&w, log);
    w.EndObject();
  });
  w.EndArray();
  Key(&w, "forward");
  w.StartArray();
  for (const std::string& name : s.forward) Str(&w, name);
  w.EndArray();
  Key(&w, "last_problem_time");
  w.Int64(s.last_problem_unix);
  Key(&w, "last_problem");
  Str(&w, s.last_problem);
  w.EndObject();
  out->Put('\n');
  out->Flush();
}

}  // namespace

bool Parse(const std::string& text, Snapshot* s, std::string* err) {
  rapidjson::Document d;
  d.Parse(text.data(), text.size());
  if (d.HasParseError() || !d.IsObject()) {
    *err = "not a JSON object";
    return false;
  }
  int64_t exit_status = 0;
  const auto stopped = d.FindMember("stopped");
  const auto sources = d.FindMember("sources");
  const auto forward = d.FindMember("forward");
  if (!GetInt(d, "pid", &s->pid) || !GetInt(d, "started", &s->started_unix) ||
      !GetInt(d, "written", &s->written_unix) || !GetInt(d, "exit_status", &exit_status) ||
      !GetString(d, "output", &s->output) ||
      !GetInt(d, "last_problem_time", &s->last_problem_unix) ||
      !GetString(d, "last_problem", &s->last_problem) || stopped == d.MemberEnd() ||
      !stopped->value.IsBool() || sources == d.MemberEnd() || !sources->value.IsArray() ||
      forward == d.MemberEnd() || !forward->value.IsArray()) {
    *err = "a field is missing or of the wrong type";
    return false;
  }
  s->stopped = stopped->value.GetBool();
  s->exit_status = static_cast<int>(exit_status);
  s->sources.clear();
  for (const rapidjson::Value& v : sources->value.GetArray()) {
    std::string id, log;
    if (!v.IsObject() || !GetString(v, "sandbox_id", &id) || !GetString(v, "log", &log)) {
      *err = "a source without sandbox_id and log";
      return false;
    }
    s->sources.emplace_back(std::move(id), std::move(log));
  }
  s->forward.clear();
  for (const rapidjson::Value& v : forward->value.GetArray()) {
    if (!v.IsString()) {
      *err = "a forward destination that is not a string";
      return false;
    }
    s->forward.emplace_back(v.GetString(), v.GetStringLength());
  }
  return true;
}

bool Write(const std::string& state_dir, const Snapshot& s, const ListSources& list_sources,
           std::string* err) {
  return metrics::WriteAtomically(
      state_dir + "/" + kFileName,
      [&](const metrics::Put& put) {
        PutStream out(put);
        Render(s, list_sources, &out);
      },
      err);
}

}  // namespace run_status
