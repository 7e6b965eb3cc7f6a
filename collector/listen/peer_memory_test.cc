#include "listen/peer_memory.h"

#include <doctest/doctest.h>

#include <string>

namespace {

// A status as the kernel writes it (the lines read, among others).
std::string Status(const std::string& uid, const std::string& gid, const std::string& groups,
                   const std::string& cap_eff, const std::string& tracer = "0") {
  return "Name:\tcurl\nUmask:\t0022\nState:\tS (sleeping)\nTracerPid:\t" + tracer + "\nUid:\t" +
         uid + "\nGid:\t" + gid + "\nFDSize:\t64\nGroups:\t" + groups +
         "\nVmPeak:\t  1000 kB\nCapInh:\t" + "0000000000000000\nCapPrm:\t" + cap_eff +
         "\nCapEff:\t" + cap_eff + "\nCapBnd:\t000001ffffffffff\nNoNewPrivs:\t1\n";
}

peer_memory::StatusIds Ids(const std::string& status) {
  peer_memory::StatusIds ids;
  REQUIRE(peer_memory::ParseStatusIds(status, &ids));
  return ids;
}

const std::string kNobody =
    Status("65534\t65534\t65534\t65534", "65534\t65534\t65534\t65534", "", "0000000000000000");
const std::string kRoot = Status("0\t0\t0\t0", "0\t0\t0\t0", "0 ", "000001ffffffffff");

struct stat File(uid_t uid, gid_t gid, mode_t mode) {
  struct stat st = {};
  st.st_uid = uid;
  st.st_gid = gid;
  st.st_mode = S_IFREG | mode;
  return st;
}

}  // namespace

TEST_CASE("the status lines: tracer, effective and filesystem ids, groups, capabilities") {
  const auto ids = Ids(Status("1000\t1001\t1002\t1003", "2000\t2001\t2002\t2003", "10 20 30 ",
                              "0000000000000006", "4242"));
  CHECK(ids.tracer_pid == 4242);
  CHECK(ids.euid == 1001);
  CHECK(ids.fsuid == 1003);
  CHECK(ids.fsgid == 2003);
  CHECK(ids.group_count == 3);
  CHECK(ids.groups[2] == 30);
  CHECK_FALSE(ids.groups_cut);
  CHECK(ids.cap_eff == 6);
}

TEST_CASE("a status cut off or malformed is not judged") {
  peer_memory::StatusIds ids;
  const std::string whole = kNobody;
  CHECK_FALSE(peer_memory::ParseStatusIds(whole.substr(0, whole.find("CapEff") + 10), &ids));
  CHECK_FALSE(peer_memory::ParseStatusIds(whole.substr(0, whole.find("Groups")), &ids));
  CHECK_FALSE(peer_memory::ParseStatusIds(
      Status("65534\t65534\t65534", "0\t0\t0\t0", "", "0000000000000000"), &ids));
  CHECK_FALSE(peer_memory::ParseStatusIds(
      Status("0\t0\t0\t0", "0\t0\t0\t0", "", "zz00000000000000"), &ids));
  CHECK_FALSE(peer_memory::ParseStatusIds(
      Status("0\t0\t0\t0", "0\t0\t0\t0", "", "0000000000000000", "x"), &ids));
}

TEST_CASE("more groups than are kept: the group and other classes both count") {
  std::string groups;
  for (int g = 1; g <= 100; ++g) groups += std::to_string(g) + " ";
  const auto ids = Ids(Status("7\t7\t7\t7", "7\t7\t7\t7", groups, "0000000000000000"));
  CHECK(ids.groups_cut);
  CHECK(peer_memory::ExeReadableBy(File(0, 999, 0750), ids));  // 999 may be past the 64 kept
  CHECK(peer_memory::ExeReadableBy(File(0, 999, 0704), ids));
  CHECK_FALSE(peer_memory::ExeReadableBy(File(0, 999, 0711), ids));
}

TEST_CASE("readable by the peer: owner class first, then group, then others; DAC capabilities") {
  const auto nobody = Ids(kNobody);
  CHECK(peer_memory::ExeReadableBy(File(0, 0, 0755), nobody));
  CHECK_FALSE(peer_memory::ExeReadableBy(File(0, 0, 0711), nobody));
  CHECK_FALSE(peer_memory::ExeReadableBy(File(0, 0, 0111), nobody));
  CHECK(peer_memory::ExeReadableBy(File(0, 65534, 0751), nobody));        // its group may read
  CHECK_FALSE(peer_memory::ExeReadableBy(File(0, 65534, 0715), nobody));  // its group may not
  CHECK_FALSE(peer_memory::ExeReadableBy(File(65534, 0, 0177), nobody));  // the owner may not
  const auto dac_read_search = Ids(
      Status("65534\t65534\t65534\t65534", "65534\t65534\t65534\t65534", "", "0000000000000004"));
  CHECK(peer_memory::ExeReadableBy(File(0, 0, 0111), dac_read_search));
  const auto root = Ids(kRoot);
  CHECK(peer_memory::ExeReadableBy(File(0, 0, 0111), root));  // CAP_DAC_OVERRIDE
  const auto root_without_caps = Ids(Status("0\t0\t0\t0", "0\t0\t0\t0", "0 ", "0000000000000000"));
  CHECK(peer_memory::ExeReadableBy(File(0, 0, 0711), root_without_caps));  // owner: rwx
  CHECK_FALSE(peer_memory::ExeReadableBy(File(0, 0, 0111), root_without_caps));
}

TEST_CASE("judged: protected only when unreadable and its /proc files are not its own") {
  using peer_memory::Judgement;
  const auto nobody = Ids(kNobody);
  // The image's shim (mode 0711): the kernel made it non-dumpable at exec.
  CHECK(peer_memory::Judge(File(0, 0, 0711), 0, nobody) == Judgement::kProtected);
  // Under user namespace remapping /proc shows the namespace's root, not 0.
  CHECK(peer_memory::Judge(File(0, 0, 0711), 100000, nobody) == Judgement::kProtected);
  // Readable: dumpable from exec, whatever it shows now.
  CHECK(peer_memory::Judge(File(0, 0, 0755), 0, nobody) == Judgement::kWritable);
  // Dumpable now, whatever the file: prctl(PR_SET_DUMPABLE, 1) or an ACL.
  CHECK(peer_memory::Judge(File(0, 0, 0711), 65534, nobody) == Judgement::kWritable);
  // Root: /proc cannot tell, the file decides.
  CHECK(peer_memory::Judge(File(0, 0, 0711), 0, Ids(kRoot)) == Judgement::kRootWritable);
  const auto root_without_caps = Ids(Status("0\t0\t0\t0", "0\t0\t0\t0", "0 ", "0000000000000000"));
  CHECK(peer_memory::Judge(File(0, 0, 0111), 0, root_without_caps) == Judgement::kProtected);
}
