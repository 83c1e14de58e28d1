#include "framework/plugin_instance.hpp"

#include "common/input_error.hpp"
#include "common/typed_args.hpp"
#include "framework/call.hpp"
#include "framework/plugin_call_record.hpp"

namespace schedhost::framework {

PluginInstance::PluginInstance(const loader::PluginDefinition& definition)
    : definition_(definition), host_{"plugin \"" + definition.name + "\""} {}

std::unique_ptr<PluginInstance> PluginInstance::create(const loader::PluginDefinition& definition,
                                                       std::string_view args_json) {
  std::unique_ptr<PluginInstance> instance(new PluginInstance(definition));
  // Upstream's apiVersion and kind never reach a plugin (common/typed_args.hpp).
  const std::string typed = typed_args_text(args_json, definition.name);
  const std::string_view args = typed.empty() ? std::string_view("{}") : std::string_view(typed);
  Call call;
  void* self = nullptr;
  schedhost_code_t code = SCHEDHOST_SUCCESS;
  {
    const PluginCallScope scope(definition, {"create()"});
    code = definition.vtable.create(host_api(), instance->host_.handle(),
                                    {args.data(), args.size()}, call.handle(), &self);
  }
  if (code != SCHEDHOST_SUCCESS) {
    const std::string reason = call.message();
    throw InputError(
        "plugin \"" + definition.name + "\": " +
        (reason.empty() ? "create() refused its args with code " + std::to_string(code) : reason));
  }
  if (self == nullptr) {
    // Every hook gets self back; a NULL one would look like a plugin that was never created.
    throw InputError("plugin \"" + definition.name +
                     "\": create() returned SUCCESS without an instance (*out_self is NULL): "
                     "return a non-NULL pointer, even to static data");
  }
  instance->self_ = self;
  instance->created_ = true;
  return instance;
}

PluginInstance::~PluginInstance() {
  if (!created_) return;
  const PluginCallScope scope(definition_, {"destroy()"});
  definition_.vtable.destroy(self_);
}

}  // namespace schedhost::framework
