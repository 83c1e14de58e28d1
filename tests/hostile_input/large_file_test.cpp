// Large files: a file above kMaxInputFileBytes (256 MiB) is refused before it is read; a
// generated cluster of many thousand objects loads. The 100 MB figures (time, RSS) are measured
// by hand and reported in README; the test keeps `make test` fast with a smaller file.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>

#include <gtest/gtest.h>

#include "cluster/cluster_file.hpp"
#include "common/input_error.hpp"
#include "config/config_parser.hpp"
#include "support/fixtures.hpp"

namespace schedhost::hostile {
namespace {

std::string error_of(const std::function<void()>& load) {
  try {
    load();
  } catch (const InputError& e) {
    return e.what();
  }
  return "<accepted>";
}

TEST(LargeFileTest, FilesAboveTheLimitAreRefusedUnread) {
  testing::ScratchDir dir;
  const std::string big = dir.write("big.yaml", "");
  std::filesystem::resize_file(big, std::uintmax_t{300} << 20);  // sparse: nothing written
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(error_of([&] { cluster::load_cluster(big); }),
            big +
                ": the file is 300 MiB, more than the 256 MiB schedhost reads: split the objects "
                "over several files of a directory");
  EXPECT_EQ(error_of([&] { config::load_configuration(big); }),
            big +
                ": the file is 300 MiB, more than the 256 MiB schedhost reads: a "
                "KubeSchedulerConfiguration is a few KiB: check the --config path");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
}

std::string generated_cluster(size_t pods) {
  std::string text;
  for (int n = 0; n < 100; ++n) {
    text += "---\napiVersion: v1\nkind: Node\nmetadata: {name: node-" + std::to_string(n) +
            "}\nstatus: {allocatable: {cpu: '1000', memory: 4000Gi, pods: '100000'}}\n";
  }
  for (size_t i = 0; i < pods; ++i) {
    text += "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: pod-" + std::to_string(i) +
            "\n  labels: {app: web}\nspec:\n  nodeName: node-" + std::to_string(i % 100) +
            "\n  containers:\n  - name: c\n    image: nginx\n    resources:\n      requests: "
            "{cpu: 100m, memory: 128Mi}\n";
  }
  return text;
}

TEST(LargeFileTest, ManyObjectsLoad) {
  // About 5 MB; 100 MB takes the same path (see README for the measured figures).
  testing::ScratchDir dir;
  const std::string file = dir.write("cluster.yaml", generated_cluster(25000));
  cluster::Cluster cluster = cluster::load_cluster(file);
  EXPECT_EQ(cluster.nodes.size(), 100u);
  EXPECT_EQ(cluster.running_pods.size(), 25000u);
}

}  // namespace
}  // namespace schedhost::hostile
