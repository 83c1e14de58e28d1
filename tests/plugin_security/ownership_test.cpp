// A plugin file or directory owned by a user other than root or the one running schedhost is
// refused: that user could rewrite it. Making such a file takes chown, so these tests run as root
// (as CI does) and hand files to nobody; as anyone else they are skipped, saying so.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <unistd.h>

#include <string>

#include "security_fixture.hpp"

namespace schedhost {
namespace {

using ::testing::ElementsAre;
using testing::SecureSetup;

class PluginOwnership : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) {
      GTEST_SKIP() << "needs root to chown a fixture to another user (CI runs as root)";
    }
    const struct passwd* nobody = ::getpwnam("nobody");
    if (nobody == nullptr) GTEST_SKIP() << "no user \"nobody\" on this machine";
    uid_ = nobody->pw_uid;
  }
  void give_to_nobody(const std::string& path) const {
    ASSERT_EQ(::chown(path.c_str(), uid_, static_cast<gid_t>(-1)), 0) << path;
  }
  std::string owner() const { return "nobody (uid " + std::to_string(uid_) + ")"; }

  uid_t uid_ = 0;
};

TEST_F(PluginOwnership, AFileOwnedByAnotherUserIsRefused) {
  SecureSetup s;
  give_to_nobody(s.plugin);
  const auto r = s.plugins();
  const std::string error = s.plugin + ": refusing to load: owned by " + owner() +
                            ", not root or the user running schedhost: chown root " + s.plugin +
                            ", or pass --allow-insecure-plugins";
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + error + "\n");
  EXPECT_THAT(SecureSetup::failed(r), ElementsAre(error));
}

TEST_F(PluginOwnership, OwnerAndModeAreReportedTogether) {
  SecureSetup s;
  give_to_nobody(s.plugin);
  testing::set_mode(s.plugin, 0646);
  const auto r = s.plugins();
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + s.plugin + ": refusing to load: owned by " + owner() +
                       ", not root or the user running schedhost, and writable by others (mode "
                       "0646): chown root " +
                       s.plugin + " && chmod go-w " + s.plugin +
                       ", or pass --allow-insecure-plugins\n");
}

TEST_F(PluginOwnership, ADirectoryOwnedByAnotherUserIsRefused) {
  SecureSetup s;
  give_to_nobody(s.dir.path());
  const auto r = s.plugins();
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error: " + s.dir.path() +
                       ": refusing to load plugins from this directory: owned by " + owner() +
                       ", not root or the user running schedhost: chown root " + s.dir.path() +
                       ", or pass --allow-insecure-plugins\n");
  EXPECT_EQ(r.out, "");
}

TEST_F(PluginOwnership, TheOverrideLoadsItWithAWarning) {
  SecureSetup s;
  give_to_nobody(s.plugin);
  const auto r = s.plugins({"--allow-insecure-plugins"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "warning: " + s.plugin +
                       ": insecure plugin file, allowed by --allow-insecure-plugins: owned "
                       "by " +
                       owner() + ", not root or the user running schedhost\n");
  EXPECT_THAT(SecureSetup::names(r),
              ElementsAre("DefaultBinder", "PrioritySort", "FixtureFilter", "FixtureScore"));
}

}  // namespace
}  // namespace schedhost
