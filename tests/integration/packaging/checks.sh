# Sourced by the packaging tests: a scratch folder, `check`, and the project's version and arch.
# shellcheck shell=bash
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
VERSION="$(sed -n 's/^project(ipybox VERSION \([0-9][0-9.]*\).*/\1/p' "$ROOT/CMakeLists.txt")"
ARCH="$(uname -m)"
SCRATCH="$(mktemp -d /tmp/ipybox-packaging-XXXXXX)"
trap 'rm -rf "$SCRATCH"' EXIT
passed=0
failed=0

check() {  # check <description> <command...>: the command must succeed; on failure $SCRATCH/last is shown
    local description="$1"
    shift
    if "$@"; then
        passed=$((passed + 1))
        echo "ok - $description"
    else
        failed=$((failed + 1))
        echo "not ok - $description"
        [ -f "$SCRATCH/last" ] && sed 's/^/    /' "$SCRATCH/last" | head -n 60
    fi
}
contains() { grep -qF -- "$2" "$1"; }
lacks() { ! grep -qF -- "$2" "$1"; }

finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" = 0 ]
}
