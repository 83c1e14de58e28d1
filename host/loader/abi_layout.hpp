// What the host knows about the layout of ABI structs across minors: the sizes they had in 1.0
// (anything smaller is refused as corrupt) and how to read a struct a plugin filled in with its
// own, possibly different, struct_size. Defined with the library rules the SDK's fake host
// shares.
#pragma once

#include <schedhost/detail/library_rules.hpp>

namespace schedhost::loader {

using library_rules::copy_struct_prefix;
using library_rules::kLibrarySize_1_0;
using library_rules::kPluginDescriptorSize_1_0;
using library_rules::kPluginVtableSize_1_0;
using library_rules::kStateOpsSize_1_0;

}  // namespace schedhost::loader
