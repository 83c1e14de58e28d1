#!/usr/bin/env bash
# Every command the container images run (deploy/Dockerfile, deploy/plugin-image/Dockerfile), so
# that the Dockerfiles stay a list of calls and a test can run the same steps without Docker:
#
#   scripts/image-build.sh build <src> <build> <staging>
#       the image's build stage: install the build packages (as root, when missing), configure a
#       Release build of <src> in <build>, build schedhost and the built-in plugins, then `stage`.
#   scripts/image-build.sh stage <build> <staging>
#       install the host and its built-in plugins into <staging>/usr/local and the SDK into
#       <staging>/sdk, then list what the binary and the plugins load at run time:
#       <staging>/runtime-libraries.txt (the resolved paths) and <staging>/runtime-packages.txt
#       (the Debian packages that hold them, which the runtime stage installs by name).
#   scripts/image-build.sh plugin <project> <sdk-prefix> <out>
#       a plugin image's build stage: configure and build a plugin project (the SDK template's
#       shape) against the SDK in <sdk-prefix>, run its tests, copy its .so files into <out>.
#   scripts/image-build.sh runtime <staging>
#       the runtime stage (debian:bookworm-slim, as root): install the packages of
#       runtime-packages.txt, add the user schedhost (uid 65532) and an empty /plugins that nobody
#       but root may write.
#   scripts/image-build.sh --check <build> [<scratch>]
#       the build stage's steps on a tree already built, cheaply (tests/deploy runs it): `stage`
#       into a scratch directory, copy the listed libraries there, check that the staged schedhost
#       loads nothing else with LD_LIBRARY_PATH set to that copy (every library resolves, and from
#       there), that it runs `version` and loads its built-in plugins, and that `plugin` builds
#       SamplePlugin against the staged SDK into a library the staged schedhost loads.
# Exit code 0 when every step passed; 1, with the failing step on stderr, otherwise.
set -euo pipefail

usage="usage: $(basename "$0") build <src> <build> <staging> | stage <build> <staging> |
       plugin <project> <sdk-prefix> <out> | runtime <staging> | --check <build> [<scratch>]"
fail() {
  echo "image-build: error: $*" >&2
  exit 1
}
step() { echo "image-build: $*" >&2; }

# What building schedhost needs from Debian (scripts/install-deps.sh has the test tools too: a
# browser, etcd, the Prometheus parser, which an image does not need). GoogleTest: tests/ is
# configured with the rest, and a plugin project's tests run in its image build.
build_packages="g++ cmake ninja-build pkg-config libboost-dev libboost-filesystem-dev
  libyaml-cpp-dev libyaml-dev libsimdjson-dev nlohmann-json3-dev libspdlog-dev libcli11-dev libcurl4-openssl-dev
  libssl-dev libcpp-httplib-dev prometheus-cpp-dev libgtest-dev libgmock-dev"

apt_install() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  ((${#missing[@]} == 0)) && return 0
  [[ $(id -u) -eq 0 ]] || fail "missing Debian packages: ${missing[*]} (run as root to install them)"
  step "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
  rm -rf /var/lib/apt/lists/*
}

# The Debian package that owns a library path. On a merged-/usr system the loader's
# /lib/x86_64-linux-gnu/x is dpkg's /usr/lib/x86_64-linux-gnu/x (or the other way round).
owner_of() {
  local path="$1" candidate out
  for candidate in "$path" "/usr$path" "${path#/usr}" "$(readlink -f "$path")"; do
    if out="$(dpkg-query -S "$candidate" 2>/dev/null)"; then
      out="$(grep -v '^diversion' <<<"$out" | head -1)"
      echo "${out%%: *}" | sed 's/:[a-z0-9_]*$//'  # libcurl4:amd64 -> libcurl4
      return 0
    fi
  done
  return 1
}

# The shared libraries the staged binary and plugins need: resolved paths, one a line, sorted.
resolved_libraries() {
  local file line failed=0
  for file in "$@"; do
    while IFS= read -r line; do
      case "$line" in
        *"=> not found"*)
          echo "image-build: error: $file needs ${line%% =>*}, which does not resolve" >&2
          failed=1 ;;
        *"=> /"*) line="${line#*=> }"; echo "${line%% (*}" ;;
        /*) echo "${line%% (*}" ;;  # the loader itself
      esac
    done < <(ldd "$file")
  done | sort -u
  return $failed
}

cmd_stage() {
  local build="$1" staging="$2"
  mkdir -p "$staging"
  step "installing the host and the built-in plugins into $staging/usr/local, the SDK into $staging/sdk"
  cmake --install "$build" --component Unspecified --prefix "$staging/usr/local" >/dev/null
  cmake --install "$build" --component sdk --prefix "$staging/sdk" >/dev/null
  local files=("$staging/usr/local/bin/schedhost" "$staging"/usr/local/lib/schedhost/plugins/*.so)
  [[ -x ${files[0]} ]] || fail "$build installed no bin/schedhost"
  ((${#files[@]} > 1)) || fail "$build installed no built-in plugin"
  resolved_libraries "${files[@]}" >"$staging/runtime-libraries.txt" ||
    fail "a library does not resolve (above): install its package in the build stage"
  local lib pkg packages=()
  while IFS= read -r lib; do
    pkg="$(owner_of "$lib")" || fail "no Debian package holds $lib"
    packages+=("$pkg")
  done <"$staging/runtime-libraries.txt"
  printf '%s\n' "${packages[@]}" | sort -u >"$staging/runtime-packages.txt"
  step "runtime packages: $(tr '\n' ' ' <"$staging/runtime-packages.txt")"
}

cmd_build() {
  local src="$1" build="$2" staging="$3"
  apt_install $build_packages
  # Warnings are the tests' business (-Werror there): a newer compiler's new warning must not
  # stop an image build. No benchmarks in an image.
  cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSCHEDHOST_WERROR=OFF \
    -DSCHEDHOST_BUILD_BENCH=OFF
  cmake --build "$build" --target schedhost schedhost_plugins
  cmd_stage "$build" "$staging"
}

cmd_plugin() {
  local project="$1" sdk="$2" out="$3" build
  build="$(mktemp -d)"
  step "building the plugin project $project against the SDK in $sdk"
  cmake -S "$project" -B "$build" -G Ninja -DCMAKE_PREFIX_PATH="$sdk" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j "$(nproc)" >/dev/null
  if [[ -f $build/CTestTestfile.cmake ]]; then
    ctest --test-dir "$build" --output-on-failure >/dev/null || fail "the plugin's tests failed"
  fi
  mkdir -p "$out"
  local found=0 so
  while IFS= read -r so; do
    install -m 0644 "$so" "$out/"
    found=1
  done < <(find "$build" -name '*.so' -not -path '*/CMakeFiles/*')
  rm -rf "$build"
  ((found)) || fail "$project built no .so"
}

cmd_runtime() {
  local staging="$1"
  # shellcheck disable=SC2046  # one package a line, names without spaces
  apt_install $(cat "$staging/runtime-packages.txt")
  id schedhost >/dev/null 2>&1 ||
    useradd --system --uid 65532 --user-group --no-create-home --home-dir /nonexistent \
      --shell /usr/sbin/nologin schedhost
  # The default plugin directory: root's, 0755. A volume is mounted over it in a pod.
  install -d -o root -g root -m 0755 /plugins
}

cmd_check() {
  local build="$1"
  scratch="${2:-}"  # global: the EXIT trap reads it
  if [[ -z $scratch ]]; then
    scratch="$(mktemp -d)"
    trap 'rm -rf "$scratch"' EXIT  # also when a step fails
  fi
  local staging="$scratch/staging" libs="$scratch/runtime-libs"
  cmd_stage "$build" "$staging"
  mkdir -p "$libs"
  local lib
  while IFS= read -r lib; do cp -L "$lib" "$libs/"; done <"$staging/runtime-libraries.txt"

  local schedhost="$staging/usr/local/bin/schedhost" line outside=()
  # With LD_LIBRARY_PATH on the copy, every library the loader maps must come from the copy: one
  # from anywhere else would be missing in the image.
  while IFS= read -r line; do
    case "$line" in
      *"=> not found"*) outside+=("$line") ;;
      *"=> /"*) [[ $line == *"=> $libs/"* ]] || outside+=("$line") ;;
    esac
  done < <(LD_LIBRARY_PATH="$libs" LD_TRACE_LOADED_OBJECTS=1 "$schedhost")
  ((${#outside[@]} == 0)) || fail "not in the collected libraries: ${outside[*]}"
  env -i LD_LIBRARY_PATH="$libs" "$schedhost" version >"$scratch/version.txt" ||
    fail "the staged schedhost does not run with only the collected libraries"
  grep -q '^schedhost ' "$scratch/version.txt" || fail "unexpected version output: $(cat "$scratch/version.txt")"

  step "building SamplePlugin as a plugin image would"
  local src
  src="$(cd "$(dirname "$0")/.." && pwd)"
  cmd_plugin "$src/plugins/examples/sample_plugin" "$staging/sdk" "$scratch/plugins"
  chmod 0755 "$scratch/plugins"
  env -i LD_LIBRARY_PATH="$libs" "$schedhost" plugins --plugin-dir "$scratch/plugins" -o json \
    >"$scratch/plugins.json" || fail "the staged schedhost does not load its plugins: $(cat "$scratch/plugins.json")"
  grep -q '"SamplePlugin"' "$scratch/plugins.json" || fail "SamplePlugin is not loaded"
  step "ok: $(wc -l <"$staging/runtime-libraries.txt") libraries from" \
    "$(wc -l <"$staging/runtime-packages.txt") packages; schedhost runs with them alone"
  return 0
}

(($# >= 1)) || fail "$usage"
mode="$1"
shift
case "$mode" in
  build) (($# == 3)) || fail "$usage"; cmd_build "$@" ;;
  stage) (($# == 2)) || fail "$usage"; cmd_stage "$@" ;;
  plugin) (($# == 3)) || fail "$usage"; cmd_plugin "$@" ;;
  runtime) (($# == 1)) || fail "$usage"; cmd_runtime "$@" ;;
  --check) (($# == 1 || $# == 2)) || fail "$usage"; cmd_check "$@" ;;
  -h | --help) echo "$usage" ;;
  *) fail "unknown mode \"$mode\"; $usage" ;;
esac
