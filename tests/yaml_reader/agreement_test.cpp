// The libyaml reader agrees with yaml-cpp on every text it takes: the committed corpora, a set of
// edge cases, and a fixed set of random edits of them (each rule of host/cluster/yaml_dialect.cpp
// was found by a larger run of the same comparison). Agreement is checked twice: on the
// documents (values and recorded positions), and on parse_cluster_text()'s whole outcome, error
// message or objects with their positions.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/yaml_agreement.hpp"

namespace schedhost::cluster::testing {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = SCHEDHOST_SOURCE_DIR;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every YAML text the repository keeps as test input.
std::vector<std::string> corpus() {
  std::vector<fs::path> files;
  for (const fs::path& dir :
       {kSource / "tests/fuzz/corpus/cluster", kSource / "tests/fuzz/corpus/profile",
        kSource / "configs", kSource / "tests/cluster/data"}) {
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
      if (entry.is_regular_file()) files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<std::string> texts;
  for (const fs::path& file : files)
    texts.push_back(read_file(file));
  return texts;
}

// Constructs around the rules, each read alike or refused by the reader.
const std::vector<std::string> kEdgeCases = {
    // kubectl's shapes: block and flow, lists, literal scalars, comments, documents
    "apiVersion: v1\nkind: List\nitems:\n- kind: Node\n  metadata: {name: a}\n- kind: Pod\n"
    "  metadata:\n    name: p\n    annotations:\n      note: |\n        two\n        lines\n",
    "kind: List\nitems: [{kind: Node, metadata: {name: é}}, {kind: ConfigMap, metadata: "
    "{name: c}}]\n",
    "---\n# c\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  a: |-\n    x\n  b: |+\n    y\n\n",
    "---\n---\nkind: X\n---\n",
    "",
    "---",
    "# only a comment\n",
    "~\n---\nnull\n",
    "- a\n- b\n",
    "\xEF\xBB\xBFkind: ConfigMap\nmetadata: {name: bom}\n",
    "kind: ConfigMap\r\nmetadata:\r\n  name: crlf\r\ndata: {a: \"x\r\n  y\"}\r\n",
    // scalars: the core schema, quoting, escapes, tags
    "a: 0x1F\nb: 0o17\nc: +3\nd: 1e3\ne: .5\nf: 123456789012345678901234567890\ng: 1.2.3\n",
    "a: \"\\x41\\u00e9\\U0001F600\\t\\/\"\nb: 'it''s'\nc: \"multi\n  line\"\n",
    "a: !!str 7\nb: !!int \"7\"\nc: ! 8\nd: !custom true\ne: !!null ''\nf: !!str null\n",
    "a: !<tag:yaml.org,2002:str> 7\n",
    "a: !!%73tr 7\n",
    "%YAML 1.1\n---\na: 1\n",
    "%TAG !e! tag:yaml.org,2002:\n---\na: !e!str 1\n",
    // keys
    "null: 1\n~: 2\n",
    "'null': 1\n\"\": 2\n",
    "1: a\n'1': b\n",
    "<<: {a: 1}\n",
    "? [a, b]\n: c\n",
    "? a\n: b\n",
    "{? a : b}\n",
    "a: 1\na: 2\n",
    // anchors and aliases
    "a: &x [1, 2]\nb: *x\nc: *x\n",
    "a: &x 1\na2: &x 2\nb: *x\n",
    "- &x a\n- *x\n",
    "a: &x\n  b: *x\n",
    "b: *missing\n",
    "*x : 1\n",
    "a: &x b\n*x : c\n",
    "&k key: v\nb: *k\n",
    "a: &x\nb: *x\n",
    "a: &x [a]\nb: [*x, *x]\n",
    "a: &a:b c\n",
    "a: &x 1\nb: *x:c\n",
    // what yaml-cpp reads differently
    "a: >\n  folded\n  text\n",
    "a: |2\n   indented\n",
    "a: |1-\n  x\n",
    "a: plain\n  more\n",
    "a: b\rc: d\n",
    "a: \"x\\Ny\"\n",
    "a: \"x\\_y\"\n",
    "a: x\xC2\x85y\n",
    "a: x\xE2\x80\xA8y\n",
    "a: 1\n...\n---\nb: 2\n",
    "a: 1\n\xEF\xBB\xBF\n",
    "{a}\n",
    "{a, b: 1}\n",
    "{a: }\n",
    "[a, b,]\n",
    "{a?b: 1}\n",
    "{a&b: 1}\n",
    "{url: http://x}\n",
    "a: [b, c, [d]]\n",
    "! \n",
    "--\"- |+\n---\n! 1.5\n.\"..\n",
    "- &a_b 012\n  {   2Gi\n",
    "a: \"x\"#c\n",
    "a: [x]#c\n",
    "\xFF\xFE\x61",
    ",",
    "[a], b",
    "a\n---\n,b",
    "\xEF\xBB\xBF?",
    "-\n|",
    "- !!map |+\n  a\n# end\n",
    "- !!str |\n   a\n",
    "- |\n  a\n",
    "k:\n  - &x |+\n     a\n# end\n",
    "--- # x\n!foo x y\n\t",
    "a: 1\n \t\n",
};

// Small edits with the characters YAML gives a meaning to, as a fuzzer makes them.
std::string mutate(std::string text, std::mt19937& random) {
  static const std::string kAlphabet = ":- \n#'\"[]{},?&*!|>\t%@a1\\";
  std::uniform_int_distribution<int> edits(1, 3);
  const int count = edits(random);
  for (int i = 0; i < count; ++i) {
    std::uniform_int_distribution<size_t> position(0, text.size());
    std::uniform_int_distribution<size_t> letter(0, kAlphabet.size() - 1);
    std::uniform_int_distribution<int> operation(0, 2);
    const size_t at = position(random);
    const char c = kAlphabet[letter(random)];
    switch (text.empty() ? 0 : operation(random)) {
      case 0:
        text.insert(at, 1, c);
        break;
      case 1:
        text.erase(std::min(at, text.size() - 1), 1);
        break;
      default:
        text[std::min(at, text.size() - 1)] = c;
        break;
    }
  }
  return text;
}

// Checks one text both ways; returns whether the reader took it.
bool expect_agreement(const std::string& text) {
  Agreement documents = compare_readers(text);
  EXPECT_EQ(documents.difference, "") << "text:\n" << text;
  EXPECT_EQ(cluster_outcome(text, "cluster.yaml", YamlReader::kFastest),
            cluster_outcome(text, "cluster.yaml", YamlReader::kYamlCppOnly))
      << "text:\n"
      << text;
  return documents.fast;
}

TEST(YamlReaderAgreementTest, Corpus) {
  int fast = 0;
  const std::vector<std::string> texts = corpus();
  for (const std::string& text : texts)
    fast += expect_agreement(text);
  // Most committed inputs are ordinary cluster files, which the reader must take.
  EXPECT_GT(fast, static_cast<int>(texts.size()) / 2);
}

TEST(YamlReaderAgreementTest, EdgeCases) {
  for (const std::string& text : kEdgeCases)
    expect_agreement(text);
}

TEST(YamlReaderAgreementTest, RandomEdits) {
  std::vector<std::string> seeds = corpus();
  seeds.insert(seeds.end(), kEdgeCases.begin(), kEdgeCases.end());
  std::mt19937 random(20240601);
  std::uniform_int_distribution<size_t> pick(0, seeds.size() - 1);
  int fast = 0;
  constexpr int kTexts = 3000;
  for (int i = 0; i < kTexts; ++i) {
    std::string text = seeds[pick(random)];
    // Long files are cut to a window so that edits land densely.
    if (text.size() > 3000) {
      std::uniform_int_distribution<size_t> start(0, text.size() - 2000);
      text = text.substr(start(random), 2000);
    }
    fast += expect_agreement(mutate(std::move(text), random));
    if (::testing::Test::HasFailure()) break;  // one text is enough to debug
  }
  EXPECT_GT(fast, kTexts / 5);
}

}  // namespace
}  // namespace schedhost::cluster::testing
