#!/usr/bin/env bash
# Creates a schedhost plugin project from the SDK's template (sdk/template):
#   scripts/new-plugin.sh <Name> <dir> [--lang c|cpp]
# <Name> is the plugin's name as profiles write it (^[a-zA-Z][a-zA-Z0-9]*$); the template's
# NodeLabelFilter / node_label_filter / node-label-filter become <Name> / <snake> / <kebab> in
# file names and contents. <dir> must not exist, or be empty. Exit code 2 on bad input.
set -euo pipefail

# Named as it was run: scripts/new-plugin.sh in the source tree, schedhost-new-plugin installed.
usage="usage: $(basename "$0") <Name> <dir> [--lang c|cpp]"
fail() {
  echo "error: $1" >&2
  exit 2
}

name="" dir="" lang="cpp"
while (($# > 0)); do
  case "$1" in
    --lang) (($# >= 2)) || fail "--lang needs a value: c or cpp; $usage"; lang="$2"; shift 2 ;;
    --lang=*) lang="${1#--lang=}"; shift ;;
    -h | --help) echo "$usage"; exit 0 ;;
    -*) fail "unknown option \"$1\"; $usage" ;;
    *)
      if [[ -z $name ]]; then name="$1"
      elif [[ -z $dir ]]; then dir="$1"
      else fail "unexpected argument \"$1\"; $usage"
      fi
      shift ;;
  esac
done
[[ -n $name && -n $dir ]] || fail "a plugin name and a directory are required; $usage"
[[ $name =~ ^[a-zA-Z][a-zA-Z0-9]*$ ]] ||
  fail "plugin \"$name\" is not a valid name: must match ^[a-zA-Z][a-zA-Z0-9]*\$"
[[ $lang == c || $lang == cpp ]] || fail "--lang must be c or cpp, got \"$lang\""
if [[ -e $dir ]] && [[ ! -d $dir || -n $(ls -A "$dir") ]]; then
  fail "$dir already exists and is not an empty directory: choose a new one"
fi

# The template: beside this script in the source tree, or in share/ of an SDK install.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
template="${SCHEDHOST_TEMPLATE_DIR:-}"
for candidate in "$here/../sdk/template" "$here/../share/schedhost-sdk/template"; do
  if [[ -z $template && -f $candidate/CMakeLists.txt ]]; then template="$candidate"; fi
done
[[ -n $template ]] || fail "cannot find the SDK template: set SCHEDHOST_TEMPLATE_DIR"

# NodeLabelFilter -> node_label_filter (GPUFilter -> gpu_filter), -> node-label-filter.
snake="$(sed -E 's/([a-z0-9])([A-Z])/\1_\2/g; s/([A-Z]+)([A-Z][a-z])/\1_\2/g' <<<"$name" |
  tr '[:upper:]' '[:lower:]')"
kebab="${snake//_/-}"
upper="$(tr '[:lower:]' '[:upper:]' <<<"$snake")"

mkdir -p "$dir"
if [[ $lang == cpp ]]; then
  (cd "$template" && tar --exclude=./c --exclude=./build -cf - .) | (cd "$dir" && tar -xf -)
else
  (cd "$template/c" && tar --exclude=./build -cf - .) | (cd "$dir" && tar -xf -)
  cp -R "$template/config" "$dir/config"  # one sample profile and cluster for both languages
fi

while IFS= read -r -d '' file; do
  sed -i -e "s/NodeLabelFilter/$name/g" -e "s/node_label_filter/$snake/g" \
    -e "s/node-label-filter/$kebab/g" -e "s/NODE_LABEL_FILTER/$upper/g" "$file"
  base="$(basename "$file")"
  if [[ $base == *node_label_filter* ]]; then
    mv "$file" "$(dirname "$file")/${base//node_label_filter/$snake}"
  fi
done < <(find "$dir" -type f -print0)

# The SDK prefix for the hint: this script's own install, or (in the source tree) where
# `make install` would put it, said as such.
if [[ -f $here/../lib/cmake/schedhost-sdk/schedhost-sdk-config.cmake ]]; then
  prefix="$(cd "$here/.." && pwd)"
else
  prefix="<the prefix of \`cmake --install build --component sdk --prefix DIR\`>"
fi

cat <<DONE
created $dir: plugin $name ($lang), library $kebab, target $snake
next:
  cmake -S $dir -B $dir/build -DCMAKE_PREFIX_PATH=$prefix -DCMAKE_BUILD_TYPE=Release
  cmake --build $dir/build && ctest --test-dir $dir/build
  schedhost run --config $dir/config/profile.yaml --cluster $dir/config/cluster.yaml --plugin-dir $dir/build/plugins --explain
DONE
