// The loader against real fixture libraries: every check refuses its own fixture with its own
// message, valid libraries load once, and a library's code and life cycle stay its own.
#include <elf.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "common/input_error.hpp"
#include "framework/call.hpp"
#include "framework/plugin_host.hpp"
#include "framework/plugin_instance.hpp"
#include "loader/plugin_registry.hpp"
#include "support/fixtures.hpp"
#include "support/log_capture.hpp"

namespace schedhost {
namespace {

using loader::PluginRegistry;
using ::testing::ElementsAre;
using testing::loader_fixture;
using testing::ScratchDir;

std::vector<std::string> point_names(const ExtensionPointSet& points) {
  std::vector<std::string> out;
  for (ExtensionPoint p : kAllExtensionPoints) {
    if (points.contains(p)) out.emplace_back(to_string(p));
  }
  return out;
}

// The one failure loading `path` produced (the test fails when there is not exactly one).
std::string refusal(const std::string& path) {
  PluginRegistry registry;
  registry.load_file(path);
  EXPECT_TRUE(registry.libraries().empty());
  if (registry.failures().size() != 1)
    return "<" + std::to_string(registry.failures().size()) + " failures>";
  EXPECT_EQ(registry.failures()[0].path, path);
  return registry.failures()[0].message;
}

// Calls a plugin's Score hook with no pod or node: the C fixture ignores them.
std::int64_t fixture_score(const loader::PluginDefinition& def) {
  auto instance = framework::PluginInstance::create(def, "{}");
  framework::Call call;
  std::int64_t score = -1;
  EXPECT_EQ(def.vtable.score(instance->self(), call.handle(), nullptr, nullptr, nullptr, &score),
            SCHEDHOST_SUCCESS);
  return score;
}

// A copy of a valid fixture with one ELF header field changed.
std::string patched_elf(const ScratchDir& dir, const std::string& name, std::size_t offset,
                        std::uint16_t value) {
  const std::string path = dir.copy_in(loader_fixture("valid"), name);
  std::FILE* f = std::fopen(path.c_str(), "r+b");
  std::fseek(f, static_cast<long>(offset), SEEK_SET);
  std::fwrite(&value, sizeof value, 1, f);
  std::fclose(f);
  return path;
}

TEST(Loader, ValidLibraryListsItsPluginsAndTheirExtensionPoints) {
  PluginRegistry registry;
  registry.load_file(loader_fixture("valid"));
  ASSERT_TRUE(registry.failures().empty()) << registry.failures()[0].message;
  ASSERT_EQ(registry.libraries().size(), 1u);
  const loader::LoadedLibrary& lib = registry.libraries()[0]->info;
  EXPECT_EQ(lib.name, "fixture");
  EXPECT_EQ(lib.version, "0.0.1");
  EXPECT_EQ(lib.build_info, "C fixture");
  EXPECT_EQ(lib.abi_major, 1u);
  EXPECT_EQ(lib.abi_minor, 9u);
  ASSERT_EQ(lib.plugins.size(), 2u);
  EXPECT_EQ(lib.plugins[0].name, "FixtureFilter");
  EXPECT_EQ(lib.plugins[0].description, "first fixture plugin");
  EXPECT_EQ(lib.plugins[1].name, "FixtureScore");
  EXPECT_THAT(point_names(lib.plugins[0].points), ElementsAre("Filter", "Score"));
  ASSERT_NE(registry.find("FixtureScore"), nullptr);
  EXPECT_EQ(registry.find("FixtureScore")->library, &lib);
  EXPECT_EQ(registry.find("Nope"), nullptr);
}

TEST(Loader, RefusesAFileThatIsNotElf) {
  ScratchDir dir;
  const std::string path = dir.write("notes.so", "these are not the bytes you are looking for\n");
  EXPECT_EQ(refusal(path), "not a shared object (no ELF header)");
}

TEST(Loader, RefusesAnotherArchitecture) {
  ScratchDir dir;
  const auto path = patched_elf(dir, "arm.so", offsetof(Elf64_Ehdr, e_machine), EM_AARCH64);
  EXPECT_EQ(refusal(path), "built for aarch64, this host runs x86_64");
}

TEST(Loader, RefusesAnElfFileThatIsNotASharedObject) {
  ScratchDir dir;
  const auto path = patched_elf(dir, "object.so", offsetof(Elf64_Ehdr, e_type), ET_REL);
  EXPECT_EQ(refusal(path), "an ELF file that is not a shared object");
}

TEST(Loader, ReportsDlopenErrorForAMissingDependency) {
  EXPECT_EQ(refusal(loader_fixture("missing_dependency")),
            "cannot be loaded: libloader_fixture_dep.so: cannot open shared object file: No such "
            "file or directory");
}

// SCHEDHOST_EMULATE_ABI_MINOR makes the host an older one for the loader too: a library that
// needs 1.2 is refused by an emulated 1.1 host, as a real one would refuse it.
TEST(Loader, AnEmulatedOlderHostRefusesWhatNeedsANewerMinor) {
  const std::string path = loader_fixture("needs_minor_2");
  ASSERT_TRUE(framework::emulate_host_abi_minor(1));
  const std::string refused = refusal(path);
  ASSERT_TRUE(framework::emulate_host_abi_minor(SCHEDHOST_ABI_MINOR));
  EXPECT_EQ(refused,
            "needs plugin ABI 1.2 or newer, this host has ABI 1.1: upgrade schedhost, or rebuild "
            "the plugin for ABI 1.1");
  PluginRegistry registry;  // this host, 1.9, loads it
  registry.load_file(path);
  EXPECT_TRUE(registry.failures().empty());
  EXPECT_EQ(registry.libraries().size(), 1u);
}

struct RefusalCase {
  const char* fixture;
  const char* message;
};

class LoaderRefuses : public ::testing::TestWithParam<RefusalCase> {};

TEST_P(LoaderRefuses, WithItsOwnMessage) {
  EXPECT_EQ(refusal(loader_fixture(GetParam().fixture)), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    EachCheck, LoaderRefuses,
    ::testing::Values(
        RefusalCase{"no_entry",
                    "not a schedhost plugin: it does not export schedhost_plugin_library_v1() "
                    "(build it with schedhost_add_plugin and SCHEDHOST_LIBRARY)"},
        RefusalCase{"returns_null",
                    "schedhost_plugin_library_v1() returned NULL: the library refused to load"},
        RefusalCase{"bad_magic",
                    "bad library magic 0x12345678 (expected 0x314C4853): the entry function does "
                    "not return a schedhost_library_t"},
        RefusalCase{"abi_major_2",
                    "built for plugin ABI 2.0, this host has ABI 1.9: rebuild the plugin with the "
                    "1.x SDK"},
        RefusalCase{"needs_newer_minor",
                    "needs plugin ABI 1.10 or newer, this host has ABI 1.9: upgrade schedhost, or "
                    "rebuild the plugin for ABI 1.9"},
        RefusalCase{"small_library",
                    "schedhost_library_t is 40 bytes, smaller than the 80 bytes of ABI 1.0: the "
                    "library is corrupt or not built with the schedhost SDK"},
        RefusalCase{"small_vtable",
                    "plugin \"FixtureFilter\": schedhost_plugin_vtable_t is 64 bytes, smaller than "
                    "the 160 bytes of ABI 1.0: the library is corrupt or not built with the "
                    "schedhost SDK"},
        RefusalCase{"init_refused",
                    "library \"fixture\" refused to initialise: license file /etc/fixture.lic not "
                    "found"},
        RefusalCase{"zero_plugins", "library \"fixture\" contains no plugins"},
        RefusalCase{"bad_name",
                    "plugin \"Sample_Plugin\" is not a valid name: must match "
                    "^[a-zA-Z][a-zA-Z0-9]*$"},
        RefusalCase{"duplicate_in_file",
                    "plugin \"FixtureFilter\" is defined twice in this library"},
        RefusalCase{"no_extension_point", "plugin \"FixtureFilter\" implements no extension point"},
        RefusalCase{"normalize_without_score",
                    "plugin \"FixtureFilter\" implements NormalizeScore without Score: add Score "
                    "or drop NormalizeScore"},
        RefusalCase{"unreserve_without_reserve",
                    "plugin \"FixtureFilter\" implements Unreserve without Reserve: add Reserve or "
                    "drop Unreserve"}),
    [](const auto& info) { return std::string(info.param.fixture); });

TEST(Loader, RefusesTheSecondFileDefiningAPluginNameAndNamesBoth) {
  ScratchDir dir;
  const std::string first = dir.copy_in(loader_fixture("valid"), "a.so");
  const std::string second = dir.copy_in(loader_fixture("valid"), "b.so");
  PluginRegistry registry;
  registry.load_directories({{dir.path(), true}});
  ASSERT_EQ(registry.libraries().size(), 1u);
  EXPECT_EQ(registry.libraries()[0]->info.path, first);
  ASSERT_EQ(registry.failures().size(), 1u);
  EXPECT_EQ(registry.failures()[0].path, second);
  EXPECT_EQ(registry.failures()[0].message,
            "plugin \"FixtureFilter\" is also defined by " + first +
                ", which loads first (files of a directory load in name order) and keeps the "
                "name: remove " +
                first + " to use this file, or remove this file to keep " + first);
}

TEST(Loader, LoadsTheSameFileOnceEvenThroughASymlink) {
  ScratchDir dir;
  const std::string real = dir.copy_in(loader_fixture("valid"), "real.so");
  std::filesystem::create_symlink(real, dir.file("alias.so"));
  testing::LogCapture log;
  PluginRegistry registry;
  registry.load_directories({{dir.path(), true}});
  registry.load_file(real);
  EXPECT_TRUE(registry.failures().empty());
  EXPECT_EQ(registry.libraries().size(), 1u);
  EXPECT_THAT(log.lines(), ElementsAre("library \"fixture\": init"));
}

TEST(Loader, EachLibraryCallsItsOwnInternalFunctions) {
  PluginRegistry registry;
  registry.load_file(loader_fixture("valid"));
  registry.load_file(loader_fixture("valid_other"));
  ASSERT_TRUE(registry.failures().empty());
  // Both define fixture_identity(); each Score reports fixture_identity() * 10 + init calls.
  EXPECT_EQ(fixture_score(*registry.find("FixtureScore")) / 10, 1);
  EXPECT_EQ(fixture_score(*registry.find("OtherScore")) / 10, 2);
}

TEST(Loader, ANewerMinorLoadsAndItsLongerTableIsNotReadPastOurs) {
  PluginRegistry registry;
  registry.load_file(loader_fixture("newer_minor"));
  ASSERT_TRUE(registry.failures().empty()) << registry.failures()[0].message;
  const loader::LoadedLibrary& lib = registry.libraries()[0]->info;
  EXPECT_EQ(lib.abi_minor, 10u);  // newer than this host (1.9)
  const loader::PluginDefinition& score = *registry.find("NewerScore");
  EXPECT_EQ(score.vtable.struct_size, sizeof(schedhost_plugin_vtable_t));
  EXPECT_EQ(score.vtable.get_extension, nullptr);  // the poison slot after it was not copied
  EXPECT_EQ(fixture_score(score) / 10, 1);
}

TEST(Loader, LifeCycleIsBalancedAndDeinitRunsInReverseLoadOrder) {
  testing::LogCapture log;
  {
    PluginRegistry registry;
    registry.load_file(loader_fixture("valid"));
    registry.load_file(loader_fixture("valid_other"));
    registry.load_file(loader_fixture("init_refused"));  // refused: never deinit
    {
      auto a = framework::PluginInstance::create(*registry.find("FixtureScore"), "{}");
      auto b = framework::PluginInstance::create(*registry.find("OtherScore"), "{}");
    }
  }
  EXPECT_THAT(log.lines(),
              ElementsAre("library \"fixture\": init", "library \"other\": init",
                          "library \"fixture\": init", "plugin \"FixtureScore\": create",
                          "plugin \"OtherScore\": create", "plugin \"OtherScore\": destroy",
                          "plugin \"FixtureScore\": destroy", "library \"other\": deinit",
                          "library \"fixture\": deinit"));
}

TEST(Loader, ARefusedLibraryWhoseInitRanIsDeinitialised) {
  ScratchDir dir;
  dir.copy_in(loader_fixture("valid"), "a.so");
  dir.copy_in(loader_fixture("valid"), "b.so");
  testing::LogCapture log;
  {
    PluginRegistry registry;
    registry.load_directories({{dir.path(), true}});
  }
  EXPECT_THAT(log.lines(),
              ElementsAre("library \"fixture\": init", "library \"fixture\": init",
                          "library \"fixture\": deinit", "library \"fixture\": deinit"));
}

TEST(Loader, MissingDirectories) {
  PluginRegistry registry;
  EXPECT_NO_THROW(registry.load_directories({{"/nonexistent/schedhost/plugins", false}}));
  try {
    registry.load_directories({{"/nonexistent/schedhost/plugins", true}});
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "/nonexistent/schedhost/plugins: plugin directory does not exist: create it or "
                 "fix --plugin-dir");
  }
}

TEST(Loader, PluginDirectoriesPutTheBuiltInDirectoryFirst) {
  const auto defaults = loader::plugin_directories({});
  ASSERT_EQ(defaults.size(), 2u);
  EXPECT_TRUE(defaults[0].required);
  EXPECT_EQ(defaults[1].path, "/plugins");
  EXPECT_FALSE(defaults[1].required);
  const auto given = loader::plugin_directories({"/a", "/b"});
  ASSERT_EQ(given.size(), 3u);
  EXPECT_EQ(given[1].path, "/a");
  EXPECT_EQ(given[2].path, "/b");
  EXPECT_TRUE(given[2].required);
}

TEST(Loader, CreateRefusalNamesThePlugin) {
  PluginRegistry registry;
  registry.load_file(loader_fixture("valid"));
  loader::PluginDefinition def = *registry.find("FixtureFilter");
  def.vtable.create = [](const schedhost_host_api_t* api, const schedhost_host_t*, schedhost_str_t,
                         schedhost_call_t* call, void**) -> schedhost_code_t {
    api->add_reason(call, {"weight must be positive", 23});
    return SCHEDHOST_ERROR;
  };
  try {
    framework::PluginInstance::create(def, "{\"weight\":-1}");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "plugin \"FixtureFilter\": weight must be positive");
  }
}

}  // namespace
}  // namespace schedhost
