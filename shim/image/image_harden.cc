// agt-deny-shim harden: strips the exec bits (and setuid/setgid) off shells,
// interpreters and encoders found at the real paths or in the pinned
// directory, following a symlink to the file it names inside the root, and
// off every other executable file in the root named like one of them (a
// version or case variant: perl5.36.0, lua5.4, Bash). Everything is decided
// first (image_strip::Plan): a file an allowed command runs, or one that may
// be reached from outside the root, fails the run before anything changes.
// The shim itself is never touched.
#include <sys/stat.h>

#include "image_scan.h"
#include "image_session.h"
#include "image_strip.h"
#include "image_tool.h"

namespace image_tool {
namespace {

using image_options::Subcommand;
using image_session::Session;
using image_text::Text;

constexpr Subcommand kSub = Subcommand::kHarden;

enum class Outcome { kAbsent, kPlanned, kAlready, kSkipped, kFailed };

Outcome PlanOne(const Session& s, int i, std::string_view name, image_strip::Plan* plan) {
  Text err;
  image_root::Located entry;
  if (!image_session::Lookup(s, i, name, &entry, &err)) {
    image_session::Error(kSub, err);
    return Outcome::kFailed;
  }
  if (!entry.exists) return Outcome::kAbsent;
  image_root::Located target;
  image_root::WalkResult r = image_root::Walk(s.root.get(), entry.path.view(),
                                              image_root::WalkMode::kFollow, &target, &err);
  if (r == image_root::WalkResult::kError) {
    image_session::Error(kSub, err);
    return Outcome::kFailed;
  }
  if (r == image_root::WalkResult::kMissing || !target.exists)
    return Outcome::kAlready;  // dangling: runs nothing
  if (!S_ISREG(target.st.st_mode)) {
    Text t;
    t.Add(entry.path.view(), " leads to ", target.path.view(), ", not a regular file; left alone");
    image_session::Warn(kSub, t);
    return Outcome::kSkipped;
  }
  if (s.shim.present && target.st.st_dev == s.shim.dev && target.st.st_ino == s.shim.ino) {
    Text t;
    t.Add(entry.path.view(), " is the deny shim; left executable");
    image_session::Report(kSub, t);
    return Outcome::kSkipped;
  }
  if ((target.st.st_mode & image_strip::kStripBits) == 0 || plan->Contains(target.path.view())) {
    return Outcome::kAlready;
  }
  std::string_view via =
      target.path.view() != entry.path.view() ? entry.path.view() : std::string_view();
  if (!plan->Add(target.path.view(), target.st, via, &err)) {
    image_session::Error(kSub, err);
    return Outcome::kFailed;
  }
  return Outcome::kPlanned;
}

// The scan of the whole root for other copies (name variants) of the names.
struct Variants {
  const Session* s;
  const image_names::NameList* names;
  image_strip::Plan* plan;
  Text err;  // the first failure to plan (a full plan)
};

void PlanVariant(void* context, const image_scan::Entry& e) {
  Variants* v = static_cast<Variants*>(context);
  const struct stat& st = *e.st;
  if (!S_ISREG(st.st_mode) || (st.st_mode & image_strip::kStripBits) == 0 || !v->err.empty())
    return;
  if (v->s->shim.present && st.st_dev == v->s->shim.dev && st.st_ino == v->s->shim.ino) return;
  if (v->plan->Contains(e.path)) return;
  for (std::string_view name : *v->names) {
    if (!image_names::IsVariantOf(e.name, name)) continue;
    v->plan->Add(e.path, st, {}, &v->err);
    return;
  }
}

}  // namespace

int Harden(int argc, char** argv) {
  image_options::Options options;
  image_names::NameList names;
  image_options::Source source;
  Session s;
  int status =
      image_session::Begin(kSub, argc, argv, "STRIP_EXEC_BIN_NAMES",
                           image_options::Default::kStripSet, &options, &names, &source, &s);
  if (status >= 0) return status;

  image_strip::Plan plan;
  int already = 0, failed = 0, absent = 0;
  Text not_present;
  for (std::string_view name : names) {
    bool present = false;
    for (int i = -1; i < static_cast<int>(s.dirs.dirs.size()); ++i) {
      if (i < 0 ? !s.pinned_present : !s.dirs.Unique(static_cast<std::size_t>(i))) continue;
      switch (PlanOne(s, i, name, &plan)) {
        case Outcome::kAbsent: break;
        case Outcome::kPlanned: present = true; break;
        case Outcome::kAlready:
          present = true;
          ++already;
          break;
        case Outcome::kSkipped: present = true; break;
        case Outcome::kFailed:
          present = true;
          ++failed;
          break;
      }
    }
    if (!present) {
      not_present.Add(absent == 0 ? "" : " ", name);
      ++absent;
    }
  }
  std::size_t by_name = plan.size();
  Variants variants{&s, &names, &plan, {}};
  Text err;
  image_session::AllowedFiles allowed;
  if (!image_session::CollectAllowedFiles(s, &allowed, &err)) {
    image_session::Error(kSub, err);
    ++failed;
  }
  if (!plan.Decide(s, PlanVariant, &variants, &variants.err, allowed, failed)) return 1;
  failed = plan.Apply(s);

  if (!not_present.empty()) {
    Text t;
    t.Add("not present: ", not_present);
    if (source == image_options::Source::kDefault) {
      image_session::Report(kSub, t);
    } else {
      image_session::Warn(kSub, t);
    }
  }
  Text t;
  t.Add(names.size(), " names: ", plan.changed(), " files stripped (", plan.size() - by_name,
        " other names found in the root), ", already, " already not executable, ", absent,
        " not present, ", failed, " failed");
  image_session::Report(kSub, t);
  return failed == 0 ? 0 : 1;
}

}  // namespace image_tool
