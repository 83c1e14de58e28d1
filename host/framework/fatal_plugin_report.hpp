// The last word of a host that plugin code brings down. When a plugin crashes (SIGSEGV, SIGBUS,
// SIGILL, SIGFPE, SIGABRT) or calls exit()/quick_exit() inside a hook, the host writes one line
// to stderr naming the plugin, its file and library, the hook, the pod and the node
// (framework/plugin_call_record.hpp), with async-signal-safe calls only:
//   fatal: plugin "CrashFilter" (/plugins/crash.so, library crash-filter 1.0.0) crashed with
//   SIGSEGV in Filter for pod default/web-1 on node node-a
// then dies by that signal, or exits kExitPluginExited for an exit: never 0, and without
// flushing output written so far (`run` never prints half a JSON document). Outside plugin code
// the signals go to whoever handled them before (the default action, or a sanitizer).
#pragma once

namespace schedhost::framework {

// EX_SOFTWARE: a plugin called exit() or quick_exit() while the host was running it.
inline constexpr int kExitPluginExited = 70;

// Installs the signal handlers once per process, and (again at each call) the exit handlers:
// call it before loading plugins and once more after, so that the host's exit handler runs
// before the static destructors the libraries registered while loading.
void install_fatal_plugin_report();

}  // namespace schedhost::framework
