#include "cluster/yaml_documents.hpp"

#include <sstream>

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include "cluster/input_limits.hpp"
#include "cluster/text_encoding.hpp"
#include "cluster/yaml_expansion.hpp"
#include "cluster/yaml_location.hpp"
#include "common/input_error.hpp"

namespace schedhost {
namespace {

// Records where each document starts; the events themselves are not needed.
class DocumentStarts : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override { start = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

  YAML::Mark start = YAML::Mark::null_mark();
};

// yaml-cpp 0.7 loops forever, allocating, on a ',' outside a flow collection where a document
// or a value could start (",", "[a], b", "a\n---\n,b"): each call yields an empty document
// without consuming the comma. One pass over the events, which builds no tree, finds the
// document that does not move forward before YAML::LoadAll() is trusted with the text.
void check_documents_advance(const std::string& text) {
  std::istringstream stream(text);
  YAML::Parser parser(stream);
  DocumentStarts starts;
  int previous = -1;
  while (parser.HandleNextDocument(starts)) {
    if (starts.start.pos <= previous) {
      const bool comma = static_cast<size_t>(starts.start.pos) < text.size() &&
                         text[static_cast<size_t>(starts.start.pos)] == ',';
      throw YAML::ParserException(starts.start, comma ? "unexpected ',' outside a [...] or {...}"
                                                      : "the parser cannot move past this token");
    }
    previous = starts.start.pos;
  }
}

}  // namespace

std::vector<YAML::Node> parse_yaml_documents(const std::string& text, std::string_view file) {
  if (text.size() > kMaxYamlTextBytes) {
    throw InputError(source_location(file) + ": " + std::to_string(text.size() >> 20) +
                     " MiB of YAML is more than the " + std::to_string(kMaxYamlTextBytes >> 20) +
                     " MiB schedhost parses at once (its YAML parser needs about 90 bytes of "
                     "memory per byte): split the objects over several files of a directory, or "
                     "write them as JSON");
  }
  check_text_encoding(text, file);
  std::vector<YAML::Node> documents;
  try {
    check_documents_advance(text);
    documents = YAML::LoadAll(text);
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's parser recurses per level and stops itself near 500 with "bad file".
    throw InputError(cluster::mark_location(file, e.mark) + ": nesting deeper than " +
                     std::to_string(kMaxNestingDepth) + " levels: flatten the document");
  }
  for (const YAML::Node& document : documents)
    check_yaml_expansion(document, file);
  return documents;
}

}  // namespace schedhost
