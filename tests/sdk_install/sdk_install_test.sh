#!/usr/bin/env bash
# The SDK as a third party gets it: `cmake --install --component sdk` of this build into a fresh
# temporary prefix, then a plugin project built against that prefix only (never the source tree),
# its unit test run, and the .so loaded by the real bin/schedhost, which must bind the template's
# two pods exactly as expected-binding.txt says.
#
#   sdk_install_test.sh <case> <source dir> <build dir>
# cases: template_cpp    sdk/template copied and built with CMake
#        new_plugin_cpp  a project made by scripts/new-plugin.sh (C++)
#        new_plugin_c    a project made by the installed schedhost-new-plugin --lang c
#        pkg_config_c    the C template built with plain cc and pkg-config, no CMake
#        package_version find_package(schedhost-sdk 1) works, 2 is refused
#        bad_name        new-plugin.sh refuses a bad name with one line and exit code 2
#        missing_entry   a library without its entry function fails to link, with pkg-config's
#                        flags and with schedhost_add_plugin, naming the symbol
#        misspelt_hook   a plugin declared with hook::Filter whose method is `filter` fails to
#                        compile with the SDK's message, in a CMake project on the prefix
#        hint_without_events  a plugin with IsSchedulableAfter but no EventsToRegister fails to
#                        compile with the SDK's message; with EventsToRegister added it builds
#        pc_and_guide    every row of docs/plugin-guide.md's pkg-config table is what the
#                        installed .pc says; it requires nlohmann_json
#        example_out_of_tree  plugins/examples/load_aware built on its own against the prefix
#                        decides exactly as the in-tree build does
set -euo pipefail

case_name="$1" src="$2" build="$3"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tmp="$(mktemp -d "${TMPDIR:-/tmp}/schedhost-sdk-install.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

install_sdk() {
  cmake --install "$build" --prefix "$tmp/prefix" --component sdk >"$tmp/install.log" ||
    { cat "$tmp/install.log"; fail "cmake --install failed"; }
}

# Configures, builds (Release, -j2) and unit-tests the project in $1 against the temp prefix.
build_project() {
  local dir="$1"
  cmake -S "$dir" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$tmp/prefix" \
    -DCMAKE_C_COMPILER="${CC:-cc}" -DCMAKE_CXX_COMPILER="${CXX:-c++}" >"$tmp/configure.log" 2>&1 ||
    { cat "$tmp/configure.log"; fail "configure of $dir failed"; }
  # The headers must come from the prefix, never from the source tree.
  if grep -rq -- "$src/sdk" "$dir/build/CMakeCache.txt"; then fail "$dir used the source tree"; fi
  cmake --build "$dir/build" -j2 >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "build of $dir failed"; }
  ctest --test-dir "$dir/build" --output-on-failure >"$tmp/ctest.log" 2>&1 ||
    { cat "$tmp/ctest.log"; fail "unit test of $dir failed"; }
  grep -q "100% tests passed" "$tmp/ctest.log" || { cat "$tmp/ctest.log"; fail "no unit test ran"; }
}

# Writes a one-plugin CMake project in $1 (language $2, source $3, relative to $1) on the prefix,
# configures it, and builds it: the build's exit code; its output in $tmp/build.log.
build_one_plugin() {
  local dir="$1" lang="$2" source="$3"
  printf '%s\n' 'cmake_minimum_required(VERSION 3.16)' "project(one_plugin $lang)" \
    'find_package(schedhost-sdk 1 CONFIG REQUIRED)' \
    "schedhost_add_plugin(one_plugin SOURCES $source)" >"$dir/CMakeLists.txt"
  cmake -S "$dir" -B "$dir/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
    -DCMAKE_C_COMPILER="${CC:-cc}" -DCMAKE_CXX_COMPILER="${CXX:-c++}" >"$tmp/configure.log" 2>&1 ||
    { cat "$tmp/configure.log"; fail "configure of $dir failed"; }
  cmake --build "$dir/build" >"$tmp/build.log" 2>&1
}

# The .so exports the entry function and nothing else.
check_exports() {
  local exports
  exports="$(nm -D --defined-only "$1" | awk '{print $3}')"
  [[ $exports == schedhost_plugin_library_v1 ]] || fail "$1 exports: $exports"
}

# Runs the host on the project's profile and cluster: the binding of every pod (pod, result,
# node lines of `-o json`, in order) must be exactly expected-binding.txt.
run_host() {
  local config="$1" plugin_dir="$2"
  "$build/bin/schedhost" run --config "$config/profile.yaml" --cluster "$config/cluster.yaml" \
    --plugin-dir "$plugin_dir" -o json >"$tmp/result.json" 2>"$tmp/stderr" ||
    { cat "$tmp/stderr"; fail "schedhost run failed"; }
  grep -E '^ *"(pod|result|node)": ' "$tmp/result.json" | sed -E 's/^ +//' >"$tmp/binding.txt"
  diff -u "$here/expected-binding.txt" "$tmp/binding.txt" ||
    { cat "$tmp/result.json"; fail "unexpected scheduling result"; }
}

case "$case_name" in
  template_cpp)
    install_sdk
    cp -R "$src/sdk/template" "$tmp/project"
    build_project "$tmp/project"
    check_exports "$tmp/project/build/plugins/node_label_filter.so"
    run_host "$tmp/project/config" "$tmp/project/build/plugins"
    ;;
  new_plugin_cpp)
    install_sdk
    "$src/scripts/new-plugin.sh" LabelPlacer "$tmp/project" >/dev/null
    grep -q 'name: LabelPlacer' "$tmp/project/config/profile.yaml" || fail "profile not renamed"
    build_project "$tmp/project"
    check_exports "$tmp/project/build/plugins/label_placer.so"
    run_host "$tmp/project/config" "$tmp/project/build/plugins"
    ;;
  new_plugin_c)
    install_sdk
    "$tmp/prefix/bin/schedhost-new-plugin" GPUPool "$tmp/project" --lang c >"$tmp/out"
    [[ -f $tmp/project/src/gpu_pool.c ]] || fail "no src/gpu_pool.c"
    # The hint names this install's prefix, and the usage the installed script's name.
    grep -qF -- "-DCMAKE_PREFIX_PATH=$tmp/prefix -DCMAKE_BUILD_TYPE=Release" "$tmp/out" ||
      { cat "$tmp/out"; fail "the next: hint does not name the prefix"; }
    status=0
    "$tmp/prefix/bin/schedhost-new-plugin" 2>"$tmp/err" || status=$?
    [[ $status == 2 && $(cat "$tmp/err") == "error: a plugin name and a directory are required; usage: schedhost-new-plugin <Name> <dir> [--lang c|cpp]" ]] ||
      fail "usage (exit $status): $(cat "$tmp/err")"
    build_project "$tmp/project"
    check_exports "$tmp/project/build/plugins/gpu_pool.so"
    run_host "$tmp/project/config" "$tmp/project/build/plugins"
    ;;
  pkg_config_c)
    install_sdk
    export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
    mkdir -p "$tmp/plugins"
    pc() { pkg-config "$@" schedhost-sdk; }
    [[ $(pc --modversion) == 1.9 ]] || fail "pkg-config version: $(pc --modversion)"
    # shellcheck disable=SC2046 # the flags are meant to be split
    "${CC:-cc}" -std=c99 -O2 -Wall -Werror $(pc --cflags) $(pc --variable=plugin_cflags) \
      -o "$tmp/plugins/node_label_filter.so" "$src/sdk/template/c/src/node_label_filter.c" \
      $(pc --variable=plugin_ldflags)
    check_exports "$tmp/plugins/node_label_filter.so"
    run_host "$src/sdk/template/config" "$tmp/plugins"
    ;;
  package_version)
    install_sdk
    for wanted in 1 1.0 1.1 1.2 1.3 1.4 1.5 1.6 1.7 1.8 1.9 1.10 2; do
      mkdir -p "$tmp/v$wanted"
      # shellcheck disable=SC2016 # ${schedhost-sdk_VERSION} is CMake's, not the shell's
      printf 'cmake_minimum_required(VERSION 3.16)\nproject(v NONE)\nfind_package(schedhost-sdk %s CONFIG REQUIRED)\nmessage(STATUS "found ${schedhost-sdk_VERSION}")\n' \
        "$wanted" >"$tmp/v$wanted/CMakeLists.txt"
      if cmake -S "$tmp/v$wanted" -B "$tmp/v$wanted/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" \
        >"$tmp/v$wanted.log" 2>&1; then
        [[ $wanted != 2 && $wanted != 1.10 ]] ||
          fail "find_package(schedhost-sdk $wanted) accepted ABI 1.9"
        grep -q -- "-- found 1.9" "$tmp/v$wanted.log" || { cat "$tmp/v$wanted.log"; fail "version"; }
      else
        [[ $wanted == 2 || $wanted == 1.10 ]] ||
          { cat "$tmp/v$wanted.log"; fail "find_package(schedhost-sdk $wanted)"; }
        grep -q "version: 1.9" "$tmp/v$wanted.log" || { cat "$tmp/v$wanted.log"; fail "message"; }
      fi
    done
    ;;
  example_out_of_tree)
    install_sdk
    cp -R "$src/plugins/examples/load_aware" "$tmp/load_aware"
    cmake -S "$tmp/load_aware" -B "$tmp/load_aware/build" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_CXX_COMPILER="${CXX:-c++}" >"$tmp/configure.log" 2>&1 ||
      { cat "$tmp/configure.log"; fail "configure of the example failed"; }
    if grep -rq -- "$src/sdk" "$tmp/load_aware/build/CMakeCache.txt"; then fail "used the source tree"; fi
    cmake --build "$tmp/load_aware/build" -j2 >"$tmp/build.log" 2>&1 ||
      { cat "$tmp/build.log"; fail "build of the example failed"; }
    mkdir -p "$tmp/plugins"
    cp "$tmp/load_aware/build/load_aware.so" "$tmp/plugins/"
    check_exports "$tmp/plugins/load_aware.so"
    data="$src/tests/examples/data"
    for dir in "$tmp/plugins" "$build/lib/schedhost/examples"; do
      "$build/bin/schedhost" run --config "$data/load-aware-profile.yaml" \
        --cluster "$data/load-aware-cluster.yaml" --plugin-dir "$dir" -o json --explain \
        >"$tmp/$(basename "$dir").json" 2>"$tmp/stderr" || { cat "$tmp/stderr"; fail "run with $dir"; }
    done
    grep -q '"result": "Scheduled"' "$tmp/plugins.json" || { cat "$tmp/plugins.json"; fail "nothing scheduled"; }
    diff -u "$tmp/examples.json" "$tmp/plugins.json" || fail "out-of-tree build decides differently"
    ;;
  bad_name)
    status=0
    "$src/scripts/new-plugin.sh" Sample_Plugin "$tmp/project" >"$tmp/out" 2>"$tmp/err" || status=$?
    [[ $status == 2 ]] || fail "exit code $status, expected 2"
    expected='error: plugin "Sample_Plugin" is not a valid name: must match ^[a-zA-Z][a-zA-Z0-9]*$'
    [[ $(cat "$tmp/err") == "$expected" ]] || fail "stderr: $(cat "$tmp/err")"
    [[ ! -s $tmp/out && ! -e $tmp/project ]] || fail "output or a project was created"
    ;;
  missing_entry)
    install_sdk
    export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
    mkdir -p "$tmp/project/src"
    # A filter with its vtable and descriptors, but no schedhost_plugin_library_v1.
    sed '/SCHEDHOST_EXPORT const schedhost_library_t\* schedhost_plugin_library_v1/,$d' \
      "$src/sdk/template/c/src/node_label_filter.c" >"$tmp/project/src/no_entry.c"
    printf '%s\n' 'static const void* keep = &library;' 'const void* no_entry_keep(void) { return keep; }' \
      >>"$tmp/project/src/no_entry.c"
    expected="required symbol \`schedhost_plugin_library_v1' not defined"
    status=0
    # shellcheck disable=SC2046 # the flags are meant to be split
    "${CC:-cc}" -std=c99 $(pkg-config --cflags schedhost-sdk) $(pkg-config --variable=plugin_cflags schedhost-sdk) \
      -o "$tmp/no_entry.so" "$tmp/project/src/no_entry.c" \
      $(pkg-config --variable=plugin_ldflags schedhost-sdk) 2>"$tmp/err" || status=$?
    [[ $status != 0 ]] || fail "a library without its entry function linked (pkg-config flags)"
    grep -qF "$expected" "$tmp/err" || { cat "$tmp/err"; fail "pkg-config link error"; }
    if build_one_plugin "$tmp/project" C src/no_entry.c; then
      fail "a library without its entry function linked (schedhost_add_plugin)"
    fi
    grep -qF "$expected" "$tmp/build.log" || { cat "$tmp/build.log"; fail "CMake link error"; }
    ;;
  misspelt_hook)
    install_sdk
    mkdir -p "$tmp/project"
    cat >"$tmp/project/misspelt.cpp" <<'CPP'
#include <schedhost/plugin.hpp>
class Misspelt {
 public:
  schedhost::Status filter(schedhost::Context&, const schedhost::CycleState&, const schedhost::Pod&,
                           const schedhost::NodeInfo&) const {
    return {};
  }
};
SCHEDHOST_LIBRARY("misspelt", "1.0.0",
                  schedhost::plugin<Misspelt, schedhost::hook::Filter>("Misspelt", "typo"))
CPP
    if build_one_plugin "$tmp/project" CXX misspelt.cpp; then
      fail "a plugin declared with hook::Filter but without Filter compiled"
    fi
    grep -qF "the plugin is declared with hook::Filter but its class has no method Status Filter(Context&, const CycleState&, const Pod&, const NodeInfo&) (misspelt, or another signature?)" \
      "$tmp/build.log" || { cat "$tmp/build.log"; fail "no SDK message for the misspelt hook"; }
    # The same class, spelt right, builds.
    sed -i 's/Status filter(/Status Filter(/' "$tmp/project/misspelt.cpp"
    cmake --build "$tmp/project/build" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "fixed build"; }
    ;;
  hint_without_events)
    install_sdk
    mkdir -p "$tmp/project"
    cat >"$tmp/project/hint_only.cpp" <<'CPP'
#include <schedhost/plugin.hpp>
class HintOnly {
 public:
  schedhost::Status Filter(schedhost::Context&, const schedhost::CycleState&, const schedhost::Pod&,
                           const schedhost::NodeInfo&) const {
    return {};
  }
  // EVENTS
  schedhost::QueueingHint IsSchedulableAfter(const schedhost::Pod&,
                                             const schedhost::ClusterEvent&) const {
    return schedhost::QueueingHint::kQueue;
  }
};
SCHEDHOST_LIBRARY("hint-only", "1.0.0",
                  schedhost::plugin<HintOnly, schedhost::hook::Filter,
                                    schedhost::hook::EnqueueExtensions>("HintOnly", "no events"))
CPP
    if build_one_plugin "$tmp/project" CXX hint_only.cpp; then
      fail "a plugin with IsSchedulableAfter but without EventsToRegister compiled"
    fi
    grep -qF "IsSchedulableAfter is the queueing hint of EventsToRegister's events: add void EventsToRegister(EventRegistry&)" \
      "$tmp/build.log" || { cat "$tmp/build.log"; fail "no SDK message for a hint without events"; }
    # With its events, the same class builds.
    sed -i 's|// EVENTS|void EventsToRegister(schedhost::EventRegistry\& e) const { e.add(schedhost::resource::kNode, schedhost::action::kAdd); }|' \
      "$tmp/project/hint_only.cpp"
    cmake --build "$tmp/project/build" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; fail "fixed build"; }
    ;;
  pc_and_guide)
    install_sdk
    export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
    pc() { pkg-config "$@" schedhost-sdk; }
    [[ $(pc --print-requires) == "nlohmann_json >= 3.9" ]] || fail "Requires: $(pc --print-requires)"
    prefix="$(pc --variable=prefix)"
    rows=0
    while IFS='|' read -r _ name value _; do
      name="$(sed -E 's/^ *`?//; s/`? *$//' <<<"$name")"
      value="$(sed -E 's/^ *`//; s/` *$//' <<<"$value")"
      case "$name" in
        plugin_cflags | plugin_cxxflags | plugin_ldflags | version_script)
          want="$(pc --variable="$name")"
          want="${want//$(pc --variable=version_script)/<version_script>}"
          [[ $name == version_script ]] && want="$(pc --variable=version_script)"
          value="${value//<prefix>/$prefix}"
          [[ $value == "$want" ]] || fail "guide says $name is '$value', the .pc says '$want'"
          rows=$((rows + 1)) ;;
        'abi_major`, `abi_minor')
          [[ $value == "$(pc --variable=abi_major)\`, \`$(pc --variable=abi_minor)" ]] ||
            fail "guide says abi_major, abi_minor are '$value'"
          rows=$((rows + 1)) ;;
      esac
    done <"$src/docs/plugin-guide.md"
    [[ $rows == 5 ]] || fail "found $rows rows of the pkg-config table in the guide, expected 5"
    ;;
  *)
    fail "unknown case $case_name"
    ;;
esac
echo "ok: $case_name"
