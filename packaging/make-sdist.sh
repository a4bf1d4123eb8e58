#!/usr/bin/env bash
# Makes the sdist ipybox_native-<version>.tar.gz from the project's source set: the files git
# tracks, as they are in the working tree (the set docker-build.sh packs for the image), copied
# to a staging folder and packed there by scikit-build-core, so no untracked file (a build tree,
# node_modules, a stray edit) can be in it and none that CMake needs can be missing from it. The
# wheel is built from this sdist (packaging/make-wheel.sh), so it too comes from the commit's
# full source set; tests/integration/packaging/wheel_sources.test.sh checks both.
#
#   packaging/make-sdist.sh <output dir>      prints the sdist's path
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
source "$ROOT/packaging/tools.sh"
mkdir -p "$1"
out="$(cd "$1" && pwd)"
ensure_packaging_tools
if ! git -C "$ROOT" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
    echo "make-sdist: run it in a git checkout of ipybox (the sdist is the files git tracks)" >&2
    exit 1
fi
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git -C "$ROOT" log -1 --format=%ct)}"

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
stage="$scratch/source"
mkdir "$stage"
# Tracked files that exist (one deleted in the working tree is left out, as from a commit).
(cd "$ROOT" && git ls-files -z --cached | while IFS= read -r -d '' file; do
    if [ -e "$file" ] || [ -L "$file" ]; then printf '%s\0' "$file"; fi
done | tar --null --files-from=- --create --file=-) | tar -xf - -C "$stage"
"$PACKAGING_PYTHON" -m build --sdist --no-isolation --outdir "$scratch/out" "$stage" > "$scratch/log" 2>&1 || {
    cat "$scratch/log" >&2
    exit 1
}
sdist="$(cd "$scratch/out" && ls ./*.tar.gz)"
mv "$scratch/out/$sdist" "$out/"
echo "$out/${sdist#./}"
