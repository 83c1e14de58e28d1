// A library cut short (a copy into the volume still in progress) is refused from its ELF headers
// alone, wherever the cut falls: in the ELF header, the program headers, a segment or the section
// headers. And a library truncated on disk after the host loaded it does not disturb the host:
// the host runs a sealed in-memory copy.
#include <elf.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "isolation_fixture.hpp"

namespace schedhost {
namespace {

namespace fs = std::filesystem;
using testing::IsolationDir;

Elf64_Ehdr elf_header(const std::string& path) {
  Elf64_Ehdr h{};
  std::ifstream(path, std::ios::binary).read(reinterpret_cast<char*>(&h), sizeof h);
  return h;
}

std::vector<Elf64_Phdr> program_headers(const std::string& path, const Elf64_Ehdr& h) {
  std::vector<Elf64_Phdr> out(h.e_phnum);
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(h.e_phoff));
  in.read(reinterpret_cast<char*>(out.data()),
          static_cast<std::streamsize>(out.size() * sizeof(Elf64_Phdr)));
  return out;
}

std::string refusal(const std::string& path, const std::string& what, std::uint64_t end,
                    std::uint64_t size) {
  return "error: " + path + ": a truncated ELF file: " + what + " ends at byte " +
         std::to_string(end) + ", the file has " + std::to_string(size) +
         " bytes (a copy still in progress?): copy the whole file again\n";
}

class TruncatedFile : public ::testing::Test {
 protected:
  // Cuts fatal.so to size bytes and checks that all three commands refuse it with line.
  void expect_refused(std::uint64_t size, const std::string& what, std::uint64_t end) {
    SCOPED_TRACE("cut at " + std::to_string(size));
    IsolationDir dir("filter_crash");
    fs::resize_file(dir.plugin(), size);
    const std::string line = refusal(dir.plugin(), what, end, size);
    const testing::ProcessResult listed = dir.plugins();
    EXPECT_EQ(listed.exit_code, 2);
    EXPECT_EQ(listed.err, line);
    const testing::ProcessResult ran = dir.run(
        testing::fatal_profile(), testing::node_yaml("node-a") + testing::pod_yaml("web-1"));
    EXPECT_EQ(ran.exit_code, 2);
    EXPECT_EQ(ran.err, line);
    EXPECT_EQ(ran.out, "");
    const testing::ProcessResult validated = dir.validate(testing::fatal_profile());
    EXPECT_EQ(validated.exit_code, 2);
    EXPECT_EQ(validated.err, line);
  }

  const std::string whole_ = testing::isolation_fixture("filter_crash");
  const Elf64_Ehdr header_ = elf_header(whole_);
  const std::uint64_t size_ = fs::file_size(whole_);
};

TEST_F(TruncatedFile, InsideTheElfHeader) {
  expect_refused(20, "its ELF header", sizeof(Elf64_Ehdr));
  expect_refused(63, "its ELF header", sizeof(Elf64_Ehdr));
}

TEST_F(TruncatedFile, InsideTheProgramHeaders) {
  const std::uint64_t end = header_.e_phoff + std::uint64_t{header_.e_phnum} * header_.e_phentsize;
  expect_refused(header_.e_phoff + 1, "its program header table", end);
  expect_refused(end - 1, "its program header table", end);
}

TEST_F(TruncatedFile, InsideASegment) {
  // The last loadable segment's bytes, cut in the middle: it is the first to reach past the cut
  // unless an earlier one does too.
  const std::vector<Elf64_Phdr> segments = program_headers(whole_, header_);
  std::size_t last = 0;
  for (std::size_t i = 0; i < segments.size(); ++i) {
    if (segments[i].p_type == PT_LOAD) last = i;
  }
  const std::uint64_t cut = segments[last].p_offset + segments[last].p_filesz / 2;
  ASSERT_GT(cut, header_.e_phoff + std::uint64_t{header_.e_phnum} * header_.e_phentsize);
  std::size_t first = segments.size();
  for (std::size_t i = 0; i < segments.size() && first == segments.size(); ++i) {
    if (segments[i].p_offset + segments[i].p_filesz > cut) first = i;
  }
  ASSERT_LE(first, last);
  const Elf64_Phdr& s = segments[first];
  expect_refused(cut,
                 "segment " + std::to_string(first) + " (bytes " + std::to_string(s.p_offset) +
                     " to " + std::to_string(s.p_offset + s.p_filesz) + ")",
                 s.p_offset + s.p_filesz);
}

TEST_F(TruncatedFile, InsideTheSectionHeaders) {
  const std::uint64_t end = header_.e_shoff + std::uint64_t{header_.e_shnum} * header_.e_shentsize;
  ASSERT_EQ(end, size_);  // the section header table ends the file
  expect_refused(size_ - 1, "its section header table", end);
}

// The first pod's Permit waits (real time) while the test cuts the library on disk to 100
// bytes; then the plugin's code runs again for the second pod. Mapped from the file, that code
// would be gone (SIGBUS); mapped from the sealed copy, both pods are scheduled.
TEST(TruncatedAfterLoading, TheRunningHostIsNotDisturbed) {
  IsolationDir dir("permit_waits");
  const std::string signals = dir.scratch().path();
  const std::string config =
      dir.scratch().write("config.yaml", testing::fatal_profile(false, signals));
  const std::string cluster = dir.scratch().write(
      "cluster.yaml",
      testing::node_yaml("node-a") + testing::pod_yaml("web-1") + testing::pod_yaml("web-2"));
  const std::string out_path = dir.scratch().file("stdout");
  const std::string err_path = dir.scratch().file("stderr");
  const std::vector<std::string> env = dir.env();
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (!freopen(out_path.c_str(), "w", stdout) || !freopen(err_path.c_str(), "w", stderr))
      _exit(127);
    for (const std::string& e : env)
      putenv(const_cast<char*>(e.c_str()));
    const std::string binary = testing::schedhost_binary();
    execl(binary.c_str(), binary.c_str(), "run", "--config", config.c_str(), "--cluster",
          cluster.c_str(), "--plugin-dir", dir.plugin_dir().c_str(), "-o", "json", nullptr);
    _exit(127);
  }
  ASSERT_GT(pid, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!fs::exists(signals + "/waiting") && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const bool waited = fs::exists(signals + "/waiting");
  fs::resize_file(dir.plugin(), 100);
  std::ofstream(signals + "/go") << "go\n";
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(waited) << testing::read_file(err_path);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status) << "\n"
                                 << testing::read_file(err_path);
  EXPECT_EQ(WEXITSTATUS(status), 0) << testing::read_file(err_path);
  const nlohmann::json out = nlohmann::json::parse(testing::read_file(out_path));
  ASSERT_EQ(out["pods"].size(), 2u) << out.dump(2);
  for (const nlohmann::json& pod : out["pods"]) {
    EXPECT_EQ(pod["result"], "Scheduled") << pod.dump();
    EXPECT_EQ(pod["node"], "node-a") << pod.dump();
  }
}

}  // namespace
}  // namespace schedhost
