// Reading a kubeconfig file (clientcmd/api/v1, as kubectl reads it) into a ClientConfig: one
// context, its cluster and its user, with *-data fields decoded and file fields read (relative
// paths are relative to the kubeconfig's directory).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "kube/client_config.hpp"

namespace schedhost::kube {

// The context named by context_override, or else by current-context. Throws InputError of one
// line naming the file (with line:column when known), the context, cluster or user and field, and
// what to do. A user with auth-provider is refused (use an exec credential plugin instead); so are
// the fields schedhost cannot honour (impersonation, proxy-url), rather than ignored.
ClientConfig load_kubeconfig(const std::string& path, const std::string& context_override = "");

// $KUBECONFIG's first entry (of a ':'-separated list) when set, else $HOME/.kube/config when that
// file exists, else "".
std::string default_kubeconfig_path();

// Standard base64 with padding (RFC 4648), as kubectl decodes a *-data field: line breaks are
// ignored, anything else that is not base64 gives nullopt.
std::optional<std::string> decode_base64(std::string_view text);
std::string encode_base64(std::string_view bytes);

}  // namespace schedhost::kube
