// Every plugin the build produces exports exactly the entry function, has no GNU-unique symbols
// and imports nothing from the host (checked with nm, as a packager would).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "support/fixtures.hpp"

namespace schedhost {
namespace {

struct Symbol {
  std::string type;
  std::string name;
};

std::vector<Symbol> dynamic_symbols(const std::string& file, const char* which) {
  const std::string command = "nm -D " + std::string(which) + " '" + file + "' 2>&1";
  std::FILE* pipe = popen(command.c_str(), "r");
  std::vector<Symbol> out;
  char buf[1024];
  while (pipe != nullptr && std::fgets(buf, sizeof buf, pipe) != nullptr) {
    std::istringstream line(buf);
    std::vector<std::string> fields;
    for (std::string f; line >> f;)
      fields.push_back(f);
    if (fields.size() >= 2) out.push_back({fields[fields.size() - 2], fields.back()});
  }
  if (pipe != nullptr) pclose(pipe);
  return out;
}

std::vector<std::string> built_plugins() {
  std::vector<std::string> files;
  for (const std::string& dir :
       {testing::builtin_plugin_dir(), std::string(SCHEDHOST_TEST_FIXTURE_DIR) + "/sdk"}) {
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() == ".so") files.push_back(entry.path().string());
    }
  }
  for (const char* name : {"valid", "valid_other", "newer_minor"}) {
    files.push_back(testing::loader_fixture(name));
  }
  return files;
}

TEST(SymbolHygiene, EveryBuiltPluginExportsOnlyTheEntryFunction) {
  const std::vector<std::string> files = built_plugins();
  ASSERT_GE(files.size(), 6u);  // the built-ins, the wrapper fixture, the C fixtures
  for (const std::string& file : files) {
    const std::vector<Symbol> defined = dynamic_symbols(file, "--defined-only");
    ASSERT_EQ(defined.size(), 1u) << file;
    EXPECT_EQ(defined[0].name, "schedhost_plugin_library_v1") << file;
    EXPECT_EQ(defined[0].type, "T") << file;  // a text symbol: nothing GNU-unique ("u")
    for (const Symbol& s : dynamic_symbols(file, "--undefined-only")) {
      EXPECT_EQ(s.name.find("schedhost"), std::string::npos) << file << " imports " << s.name;
    }
  }
}

}  // namespace
}  // namespace schedhost
