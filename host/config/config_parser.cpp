#include "config/config_parser.hpp"

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "cluster/error_line.hpp"
#include "cluster/input_file.hpp"
#include "cluster/yaml_documents.hpp"
#include "common/input_error.hpp"
#include "common/typed_args.hpp"
#include "config/configuration_defaults.hpp"
#include "config/extender_config.hpp"
#include "config/upstream_only_fields.hpp"
#include "config/yaml_field_reader.hpp"
#include "config/yaml_scalar.hpp"
#include "config/yaml_to_json.hpp"
#include "loader/plugin_name.hpp"

namespace schedhost::config {
namespace {

constexpr auto kInt32Min = std::numeric_limits<std::int32_t>::min();
constexpr auto kInt32Max = std::numeric_limits<std::int32_t>::max();
constexpr auto kInt64Min = std::numeric_limits<std::int64_t>::min();
constexpr auto kInt64Max = std::numeric_limits<std::int64_t>::max();

// Fields schedhost models; the upstream-only ones are added to the known list separately.
constexpr std::array<std::string_view, 7> kModeledTopLevelFields = {
    "apiVersion",
    "kind",
    "parallelism",
    "percentageOfNodesToScore",
    "podInitialBackoffSeconds",
    "podMaxBackoffSeconds",
    "profiles",
};
constexpr std::array<std::string_view, 4> kProfileFields = {
    "schedulerName", "plugins", "pluginConfig", "percentageOfNodesToScore"};
constexpr std::array<std::string_view, 2> kPluginSetFields = {"enabled", "disabled"};
constexpr std::array<std::string_view, 2> kPluginFields = {"name", "weight"};
constexpr std::array<std::string_view, 2> kPluginConfigFields = {"name", "args"};

std::string in_quotes(std::string_view s) {
  return "\"" + std::string(s) + "\"";
}

// The value of `key` in a mapping without checking anything else, to name an object in messages
// before its fields are read (a profile by its schedulerName, a plugin entry by its name).
std::optional<std::string> peek_scalar(const YAML::Node& node, std::string_view key) {
  if (!node.IsMap()) return std::nullopt;
  for (auto it = node.begin(); it != node.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key && it->second.IsScalar()) {
      return it->second.Scalar();
    }
  }
  return std::nullopt;
}

class ConfigurationParser {
 public:
  explicit ConfigurationParser(std::string_view file_name) : reader_(std::string(file_name)) {}

  SchedulerConfiguration parse(std::string_view text) {
    YAML::Node root = load_single_document(text);
    SchedulerConfiguration configuration;
    configuration.file = reader_.file();
    configuration.api_version = read_type_meta(root, &configuration.api_version_location);
    api_version_ = configuration.api_version;

    std::vector<std::string_view> known(kModeledTopLevelFields.begin(),
                                        kModeledTopLevelFields.end());
    for (auto name : upstream_only_field_names())
      known.push_back(name);

    for (const auto& field : reader_.fields(root, "KubeSchedulerConfiguration", known)) {
      configuration.field_locations[field.name] = reader_.location(field);
      if (field.is_null()) continue;  // null = not set: the default stays
      const std::string& name = field.name;
      if (name == "apiVersion" || name == "kind") {
        continue;  // read above
      } else if (name == "parallelism") {
        configuration.parallelism =
            static_cast<int>(reader_.read_integer(field.value, name, kInt32Min, kInt32Max));
      } else if (name == "percentageOfNodesToScore") {
        configuration.percentage_of_nodes_to_score =
            static_cast<int>(reader_.read_integer(field.value, name, kInt32Min, kInt32Max));
      } else if (name == "podInitialBackoffSeconds") {
        configuration.pod_initial_backoff_seconds =
            reader_.read_integer(field.value, name, kInt64Min, kInt64Max);
      } else if (name == "podMaxBackoffSeconds") {
        configuration.pod_max_backoff_seconds =
            reader_.read_integer(field.value, name, kInt64Min, kInt64Max);
      } else if (name == "profiles") {
        reader_.expect_list(field.value, "profiles");
        std::size_t index = 0;
        for (const auto& item : field.value) {
          configuration.profiles.push_back(parse_profile(item, index++));
        }
      } else {
        configuration.upstream_only_fields[name] = read_upstream_only_field(reader_, field);
        if (name == "extenders") configuration.extenders = read_extenders(reader_, field.value);
      }
    }
    apply_defaults(configuration);
    return configuration;
  }

 private:
  YAML::Node load_single_document(std::string_view text) {
    std::vector<YAML::Node> documents;
    try {
      // Refuses bad encoding, deep nesting and alias bombs before any field is read.
      documents = parse_yaml_documents(std::string(text), reader_.file());
    } catch (const YAML::Exception& e) {
      SourceLocation at{reader_.file(), 0, 0};
      if (!e.mark.is_null())
        at = SourceLocation{reader_.file(), e.mark.line + 1, e.mark.column + 1};
      reader_.fail(at, "the file is not valid YAML (" + e.msg + "): fix the syntax here");
    }
    std::erase_if(documents, [](const YAML::Node& d) { return !d || d.IsNull(); });
    if (documents.empty()) {
      reader_.fail(SourceLocation{reader_.file(), 0, 0},
                   "the file is empty: write a KubeSchedulerConfiguration (apiVersion: " +
                       std::string(kApiVersionV1) + ", kind: KubeSchedulerConfiguration)");
    }
    if (documents.size() > 1) {
      reader_.fail(documents[1],
                   "a second YAML document starts here: the file must hold exactly one "
                   "KubeSchedulerConfiguration; remove the other documents");
    }
    if (!documents.front().IsMap()) {
      reader_.fail(documents.front(),
                   "the file must hold a KubeSchedulerConfiguration mapping, got " +
                       describe_yaml_value(documents.front()) +
                       ": start it with `apiVersion: " + std::string(kApiVersionV1) + "`");
    }
    return documents.front();
  }

  // apiVersion and kind are checked before any other field, so that a file of another kind (a Pod,
  // a cluster) gets "wrong kind" rather than a list of unknown fields.
  std::string read_type_meta(const YAML::Node& root, SourceLocation* api_version_location) {
    std::optional<YAML::Node> api_version;
    std::optional<YAML::Node> kind;
    for (auto it = root.begin(); it != root.end(); ++it) {
      if (!it->first.IsScalar()) continue;
      if (it->first.Scalar() == "apiVersion" && !api_version) api_version = it->second;
      if (it->first.Scalar() == "kind" && !kind) kind = it->second;
    }
    const std::string supported =
        std::string(kApiVersionV1) + " (or the older " + std::string(kApiVersionV1beta3) + ")";
    if (!api_version || api_version->IsNull()) {
      reader_.fail(root, "the configuration has no apiVersion: add `apiVersion: " +
                             std::string(kApiVersionV1) + "`");
    }
    std::string version = reader_.read_string(*api_version, "apiVersion");
    *api_version_location = reader_.location(*api_version);
    if (version != kApiVersionV1beta3 && version != kApiVersionV1) {
      reader_.fail(*api_version,
                   "apiVersion " + in_quotes(version) + " is not supported: use " + supported);
    }
    if (!kind || kind->IsNull()) {
      reader_.fail(root, "the configuration has no kind: add `kind: KubeSchedulerConfiguration`");
    }
    std::string kind_name = reader_.read_string(*kind, "kind");
    if (kind_name != kConfigurationKind) {
      reader_.fail(*kind, "kind " + in_quotes(kind_name) +
                              " is not supported: use KubeSchedulerConfiguration (this file "
                              "configures the scheduler; clusters go in --cluster)");
    }
    return version;
  }

  bool is_v1() const { return api_version_ == kApiVersionV1; }

  Profile parse_profile(const YAML::Node& node, std::size_t index) {
    Profile profile;
    profile.location = reader_.location(node);
    auto written_name = peek_scalar(node, "schedulerName");
    const std::string label = written_name ? "profile " + in_quotes(*written_name)
                                           : "profiles[" + std::to_string(index) + "]";
    for (const auto& field : reader_.fields(node, label, kProfileFields)) {
      if (field.name == "percentageOfNodesToScore" && !is_v1()) {
        reader_.fail(field.key, "field \"percentageOfNodesToScore\" in " + label +
                                    " exists only in " + std::string(kApiVersionV1) +
                                    ": set the top-level percentageOfNodesToScore, or use "
                                    "apiVersion: " +
                                    std::string(kApiVersionV1));
      }
      if (field.is_null()) continue;
      if (field.name == "schedulerName") {
        profile.scheduler_name = reader_.read_string(field.value, "schedulerName of " + label);
        profile.scheduler_name_location = reader_.location(field.value);
      } else if (field.name == "percentageOfNodesToScore") {
        profile.percentage_of_nodes_to_score = static_cast<int>(reader_.read_integer(
            field.value, "percentageOfNodesToScore of " + label, kInt32Min, kInt32Max));
        profile.percentage_location = reader_.location(field.value);
      } else if (field.name == "plugins") {
        profile.plugins = parse_plugins(field.value, label);
      } else if (field.name == "pluginConfig") {
        parse_plugin_config(field.value, label, profile);
      }
    }
    return profile;
  }

  PluginSets parse_plugins(const YAML::Node& node, const std::string& label) {
    std::vector<std::string_view> known;
    for (auto point : kConcreteConfigExtensionPoints)
      known.push_back(field_name(point));
    known.push_back(field_name(ConfigExtensionPoint::MultiPoint));

    PluginSets sets;
    for (const auto& field : reader_.fields(node, "plugins of " + label, known)) {
      if (field.is_null()) continue;
      auto point = *config_extension_point_from_field(field.name);
      sets[point] = parse_plugin_set(field.value, label, point);
    }
    return sets;
  }

  PluginSet parse_plugin_set(const YAML::Node& node, const std::string& label,
                             ConfigExtensionPoint point) {
    const std::string path = "plugins." + std::string(field_name(point));
    PluginSet set;
    for (const auto& field : reader_.fields(node, path + " of " + label, kPluginSetFields)) {
      if (field.is_null()) continue;
      const std::string list_path = path + "." + field.name;
      const bool disabled = field.name == "disabled";
      reader_.expect_list(field.value, list_path + " of " + label);
      std::size_t index = 0;
      for (const auto& item : field.value) {
        std::string entry = list_path + "[" + std::to_string(index++) + "] of " + label;
        (disabled ? set.disabled : set.enabled)
            .push_back(parse_plugin_reference(item, entry, disabled));
      }
    }
    return set;
  }

  PluginReference parse_plugin_reference(const YAML::Node& node, const std::string& entry,
                                         bool disabled) {
    auto written_name = peek_scalar(node, "name");
    const std::string object = written_name ? "plugin " + in_quotes(*written_name) : entry;
    auto fields = reader_.fields(node, object, kPluginFields);

    PluginReference plugin;
    const YamlField* name = find_field(fields, "name");
    if (name == nullptr || name->is_null()) {
      reader_.fail(node, entry + " has no name: add `name: <PluginName>`");
    }
    plugin.name = reader_.read_string(name->value, "name of " + entry);
    plugin.location = reader_.location(name->value);
    if (plugin.name == "*") {
      if (!disabled) {
        reader_.fail(name->value,
                     "plugin \"*\" cannot be enabled: \"*\" is only for disabled, where it turns "
                     "off every default plugin of that extension point; name the plugin to enable");
      }
    } else {
      check_plugin_name(name->value, plugin.name, !disabled);
    }
    if (const YamlField* weight = find_field(fields, "weight"); weight && !weight->is_null()) {
      plugin.weight = static_cast<std::int32_t>(reader_.read_integer(
          weight->value, "weight of plugin " + in_quotes(plugin.name), kInt32Min, kInt32Max));
    }
    return plugin;
  }

  void check_plugin_name(const YAML::Node& at, const std::string& name, bool check_removed) {
    if (!is_valid_plugin_name(name)) {
      reader_.fail(at, "plugin " + in_quotes(name) + " is not a valid name: must match " +
                           std::string(kPluginNamePattern));
    }
    // Upstream's invalidPluginsByVersion: v1 rejects plugins removed from kube-scheduler by name
    // (SelectorSpread in v1.28; the in-tree volume limit plugins in v1.35). Disabling them is fine.
    if (check_removed && is_v1() && name == "SelectorSpread") {
      reader_.fail(at, "plugin \"SelectorSpread\" is invalid in " + std::string(kApiVersionV1) +
                           ": remove it (PodTopologySpread spreads pods by default), or use "
                           "apiVersion: " +
                           std::string(kApiVersionV1beta3));
    }
    if (check_removed && is_v1() &&
        (name == "AzureDiskLimits" || name == "CinderLimits" || name == "EBSLimits" ||
         name == "GCEPDLimits")) {
      reader_.fail(at, "plugin " + in_quotes(name) + " is invalid in " +
                           std::string(kApiVersionV1) +
                           ": remove it (kube-scheduler v1.35 counts these volumes in "
                           "NodeVolumeLimits, through CSI migration)");
    }
  }

  void parse_plugin_config(const YAML::Node& node, const std::string& label, Profile& profile) {
    reader_.expect_list(node, "pluginConfig of " + label);
    std::size_t index = 0;
    for (const auto& item : node) {
      const std::string entry = "pluginConfig[" + std::to_string(index++) + "] of " + label;
      auto written_name = peek_scalar(item, "name");
      const std::string object =
          written_name ? "pluginConfig " + in_quotes(*written_name) + " of " + label : entry;
      auto fields = reader_.fields(item, object, kPluginConfigFields);

      const YamlField* name_field = find_field(fields, "name");
      if (name_field == nullptr || name_field->is_null()) {
        reader_.fail(item, entry + " has no name: add `name: <PluginName>`");
      }
      std::string name = reader_.read_string(name_field->value, "name of " + entry);
      check_plugin_name(name_field->value, name, true);
      SourceLocation at = reader_.location(name_field->value);
      if (auto previous = profile.plugin_config_locations.find(name);
          previous != profile.plugin_config_locations.end()) {
        reader_.fail(at, "pluginConfig for plugin " + in_quotes(name) + " appears twice in " +
                             label + " (first at " + previous->second.to_string() +
                             "): merge the args into one entry");
      }

      nlohmann::json args = nlohmann::json::object();
      if (const YamlField* args_field = find_field(fields, "args");
          args_field && !args_field->is_null()) {
        const std::string what = "args of plugin " + in_quotes(name);
        if (!args_field->value.IsMap()) {
          reader_.fail(args_field->value,
                       what + " must be a mapping of fields, got " +
                           describe_yaml_value(args_field->value) +
                           ": write the args as `field: value` lines under args");
        }
        args = yaml_to_json(args_field->value, reader_, what);
        // Upstream's typed args: checked here, where the field's position is known, and
        // removed, so that no plugin (and no comparison of args) ever sees them.
        if (auto problem = check_typed_args(args, name)) {
          const YAML::Node& map = args_field->value;
          reader_.fail(map[problem->field], what + ": " + problem->message);
        }
        strip_typed_args(args);
      }
      profile.plugin_args[name] = std::move(args);
      profile.plugin_config_locations[name] = at;
    }
  }

  YamlFieldReader reader_;
  std::string api_version_;
};

}  // namespace

SchedulerConfiguration parse_configuration(std::string_view text, std::string_view file_name) {
  return with_one_line_errors([&] { return ConfigurationParser(file_name).parse(text); });
}

SchedulerConfiguration load_configuration(const std::filesystem::path& path) {
  const std::string file = path.string();
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError(file + ": is a directory: pass a KubeSchedulerConfiguration file to --config");
  }
  std::optional<std::string> text =
      read_input_file(path, "a KubeSchedulerConfiguration is a few KiB: check the --config path");
  if (!text) {
    throw InputError(file + ": cannot read the configuration file (" + std::strerror(errno) +
                     "): check the --config path");
  }
  return parse_configuration(*text, file);
}

}  // namespace schedhost::config
