#!/usr/bin/env bash
# The plugins' launchers (plugins/*/bin/ipybox-mcp) against fake `ipybox` and `docker` programs:
# how they find the binary, which workspace and flags they pass, what they say when something
# is missing, and that under --sandbox (and codeact-docker) they run nothing from the project.
# Each launch hides the machine's installed ipybox and uv (see launch: needs root and unshare).
# No Claude Code and no real server needed; runs in a few seconds.
#
#   tests/integration/plugin/launchers.test.sh
# shellcheck disable=SC2016,SC2034 # the checks are strings, eval'd (and expanded) when they run
set -uo pipefail
ROOT="$(cd "$(dirname "$0")/../../.." && pwd)"
DEFAULT="$ROOT/plugins/codeact-default/bin/ipybox-mcp"
SANDBOX="$ROOT/plugins/codeact-sandbox/bin/ipybox-mcp"
DOCKER="$ROOT/plugins/codeact-docker/bin/ipybox-mcp"
VERSION="$(sed -n 's/^project(ipybox VERSION \([0-9][0-9.]*\).*/\1/p' "$ROOT/CMakeLists.txt")"

SCRATCH="$(mktemp -d /tmp/ipybox-launchers-XXXXXX)"
trap 'rm -rf "$SCRATCH"' EXIT
passed=0
failed=0

check() {  # check <description> <command...>: the command must succeed
    local description="$1"
    shift
    if "$@"; then
        passed=$((passed + 1))
        echo "ok - $description"
    else
        failed=$((failed + 1))
        echo "not ok - $description"
        echo "  stdout: $(cat "$SCRATCH/out" 2>/dev/null)"
        echo "  stderr: $(cat "$SCRATCH/err" 2>/dev/null)"
        echo "  recorded: $(cat "$SCRATCH/record" 2>/dev/null)"
    fi
}
contains() { grep -qF -- "$2" "$1"; }
lacks() { ! grep -qF -- "$2" "$1"; }

# A fake ipybox: prints its version, records its arguments and cwd, exits 0.
mkdir -p "$SCRATCH/fakebin" "$SCRATCH/project" "$SCRATCH/elsewhere" "$SCRATCH/home"
make_fake_ipybox() {  # make_fake_ipybox <path> <version>
    cat > "$1" <<EOF
#!/bin/sh
if [ "\$1" = --version ]; then echo "ipybox $2"; exit 0; fi
{ printf 'cwd=%s\n' "\$PWD"; printf 'path=%s\n' "\$PATH"; for a in "\$@"; do printf 'arg=%s\n' "\$a"; done; } > "$SCRATCH/record"
EOF
    chmod +x "$1"
}
make_fake_ipybox "$SCRATCH/fakebin/ipybox" "$VERSION"
make_fake_ipybox "$SCRATCH/old-ipybox" "0.0.1"

# Every launch hides the copies of ipybox and uv installed on this machine, which the launcher
# would otherwise find (and rightly run) instead of the fakes: it runs in a private mount namespace
# with a tmpfs over /usr/local/bin and /dev/null (not executable) over any ipybox, uvx or uv in
# /usr/bin and /bin; HOME and the plugin's data folder lie in $SCRATCH. Hiding needs root and
# unshare (as in CI); without them, an installed copy makes every launch fail, saying why.
HIDDEN_NAMES="ipybox uvx uv"
installed_copies() {
    local dir name
    for dir in /usr/local/bin /usr/bin /bin; do
        for name in $HIDDEN_NAMES; do [ -e "$dir/$name" ] && echo "$dir/$name"; done
    done
}
if [ "$(id -u)" = 0 ] && command -v unshare > /dev/null && unshare --mount true 2> /dev/null; then
    CAN_HIDE=yes
else
    CAN_HIDE=no
fi
# Run by sh in the new namespace: hide, put $1 (if any) in the emptied /usr/local/bin, run the rest.
HIDE='
usr_local_ipybox="$1"
shift
mount -t tmpfs ipybox-test-hidden /usr/local/bin || exit 98
for dir in /usr/bin /bin; do
    for name in '"$HIDDEN_NAMES"'; do
        if [ -e "$dir/$name" ] && ! mount --bind /dev/null "$dir/$name"; then exit 98; fi
    done
done
if [ -n "$usr_local_ipybox" ]; then cp "$usr_local_ipybox" /usr/local/bin/ipybox || exit 98; fi
exec "$@"'

# Runs a launcher with a minimal environment, installed copies hidden; extra VAR=value arguments
# come first. USR_LOCAL_IPYBOX=<file> (a variable of the caller) puts that file at the hidden
# /usr/local/bin/ipybox for this launch.
launch() {  # launch <launcher> [VAR=value ...] -- [arguments...]
    local launcher="$1"
    shift
    local variables=()
    while [ "$1" != -- ]; do variables+=("$1"); shift; done
    shift
    rm -f "$SCRATCH/record"
    local command=(env -i HOME="$SCRATCH/home" PATH="/usr/bin:/bin" CLAUDE_PLUGIN_DATA="$SCRATCH/plugin-data"
        "${variables[@]}" "$launcher" "$@")
    if [ "$CAN_HIDE" = yes ]; then
        (cd "$SCRATCH/elsewhere" && unshare --mount sh -c "$HIDE" sh "${USR_LOCAL_IPYBOX:-}" "${command[@]}" \
            > "$SCRATCH/out" 2> "$SCRATCH/err")
        echo $? > "$SCRATCH/status"
    elif [ -n "$(installed_copies)" ] || [ -n "${USR_LOCAL_IPYBOX:-}" ]; then
        echo "FAIL: cannot hide the installed $(installed_copies | tr '\n' ' ')(or plant one) for this test:" \
            "that needs root and unshare --mount" > "$SCRATCH/err"
        : > "$SCRATCH/out"
        echo 99 > "$SCRATCH/status"
    else
        (cd "$SCRATCH/elsewhere" && "${command[@]}" > "$SCRATCH/out" 2> "$SCRATCH/err")
        echo $? > "$SCRATCH/status"
    fi
}
status_is() { [ "$(cat "$SCRATCH/status")" = "$1" ]; }

# --- finding the binary --------------------------------------------------------------------
launch "$DEFAULT" IPYBOX_BIN="$SCRATCH/fakebin/ipybox" CLAUDE_PROJECT_DIR="$SCRATCH/project" --
check "runs IPYBOX_BIN as 'mcp --workspace <CLAUDE_PROJECT_DIR>'" \
    eval 'status_is 0 && [ "$(grep ^arg= "$SCRATCH/record" | tr "\n" " ")" = "arg=mcp arg=--workspace arg=$SCRATCH/project " ]'
check "prints nothing on stderr when versions agree" eval '[ ! -s "$SCRATCH/err" ]'

launch "$DEFAULT" IPYBOX_BIN="$SCRATCH/fakebin/ipybox" --
check "workspace defaults to the directory Claude Code starts the server in" \
    contains "$SCRATCH/record" "arg=$SCRATCH/elsewhere"

launch "$DEFAULT" PATH="$SCRATCH/fakebin:/usr/bin:/bin" CLAUDE_PROJECT_DIR="$SCRATCH/project" --
check "finds ipybox on PATH" eval 'status_is 0 && contains "$SCRATCH/record" "arg=mcp"'

launch "$DEFAULT" IPYBOX_BIN="$SCRATCH/old-ipybox" CLAUDE_PROJECT_DIR="$SCRATCH/project" --
check "warns when the binary's version differs from the plugin's, and still starts" \
    eval 'status_is 0 && contains "$SCRATCH/err" "version '"'"'0.0.1'"'"' but this plugin is $VERSION" && contains "$SCRATCH/record" "arg=mcp"'

launch "$DEFAULT" IPYBOX_BIN="$SCRATCH/nonexistent" --
check "a wrong IPYBOX_BIN is named, with the install hint, exit 127" \
    eval 'status_is 127 && contains "$SCRATCH/err" "IPYBOX_BIN is set to" && contains "$SCRATCH/err" "install.sh"'

launch "$DEFAULT" --
check "without a binary: exit 127, the places looked at, and this clone's install.sh" \
    eval 'status_is 127 && contains "$SCRATCH/err" "native ipybox binary was not found" && contains "$SCRATCH/err" "$ROOT/install.sh"'
check "without a binary and without a checksum for this machine in release.txt: nothing is fetched" \
    eval 'contains "$SCRATCH/err" "lists no prebuilt ipybox for linux-$(uname -m)" && lacks "$SCRATCH/err" "downloading"'

cp -r "$ROOT/plugins/codeact-default" "$SCRATCH/cached-copy"
launch "$SCRATCH/cached-copy/bin/ipybox-mcp" --
check "without a binary, from an installed copy: says to clone and run ./install.sh" \
    eval 'status_is 127 && contains "$SCRATCH/err" "clone the ipybox repository, then run ./install.sh"'

# Control for the hiding above: an ipybox of the plugin's version at /usr/local/bin (PATH left
# at /usr/bin:/bin) is what the launcher runs, so only hiding keeps installed copies out of the tests.
if [ "$CAN_HIDE" = yes ]; then
    USR_LOCAL_IPYBOX="$SCRATCH/fakebin/ipybox" launch "$DEFAULT" CLAUDE_PROJECT_DIR="$SCRATCH/project" --
    check "control: an ipybox at /usr/local/bin, not on PATH, is found and run (hidden in every other launch)" \
        eval 'status_is 0 && contains "$SCRATCH/record" "arg=mcp" && [ ! -s "$SCRATCH/err" ]'
else
    echo "cannot hide or plant /usr/local/bin/ipybox: needs root and unshare --mount" > "$SCRATCH/err"
    check "control: an ipybox at /usr/local/bin, not on PATH, is found and run (hidden in every other launch)" false
fi

# --- fetching the release copy into CLAUDE_PLUGIN_DATA --------------------------------------
# A loopback HTTP server serves <release URL>/v<version>/<file>; the plugin copy's release.txt
# carries the URL and the good tarball's SHA-256. Each fake binary records how it was run.
TARBALL="ipybox-$VERSION-linux-$(uname -m).tar.gz"
make_release_tarball() {  # make_release_tarball <fake binary version> <output> [extra line for the fake]
    local tree="$SCRATCH/tree/ipybox-$VERSION-linux-$(uname -m)"
    rm -rf "$SCRATCH/tree"
    mkdir -p "$tree/bin"
    make_fake_ipybox "$tree/bin/ipybox" "$1"
    [ $# -lt 3 ] || sed -i "2i $3" "$tree/bin/ipybox"
    tar -czf "$2" -C "$SCRATCH/tree" "$(basename "$tree")"
}
mkdir -p "$SCRATCH/releases/v$VERSION" "$SCRATCH/good"
make_release_tarball "$VERSION" "$SCRATCH/good/$TARBALL"
cp "$SCRATCH/good/$TARBALL" "$SCRATCH/releases/v$VERSION/"
python3 -u -m http.server --bind 127.0.0.1 --directory "$SCRATCH/releases" 0 > "$SCRATCH/http.out" 2> "$SCRATCH/http.log" &
http_pid=$!
trap 'kill "$http_pid" 2> /dev/null; rm -rf "$SCRATCH"' EXIT
for _ in $(seq 100); do grep -q "port [0-9]" "$SCRATCH/http.out" && break; sleep 0.1; done
port="$(sed -n 's/.* port \([0-9]*\) .*/\1/p' "$SCRATCH/http.out")"
downloads() { grep -c "GET /v$VERSION/$TARBALL" "$SCRATCH/http.log"; }

cp -r "$ROOT/plugins/codeact-default" "$SCRATCH/fetching"
{
    grep '^#' "$ROOT/plugins/codeact-default/release.txt"
    echo "url http://127.0.0.1:$port"
    echo "sha256 $TARBALL $(sha256sum "$SCRATCH/good/$TARBALL" | cut -d ' ' -f 1)"
} > "$SCRATCH/fetching/release.txt"
FETCHING="$SCRATCH/fetching/bin/ipybox-mcp"

launch "$FETCHING" CLAUDE_PLUGIN_DATA="$SCRATCH/data" CLAUDE_PROJECT_DIR="$SCRATCH/project" --
check "first start without a binary: downloads the release, unpacks it into CLAUDE_PLUGIN_DATA and runs it" \
    eval 'status_is 0 && contains "$SCRATCH/err" "downloading ipybox $VERSION from http://127.0.0.1:$port/v$VERSION/$TARBALL" && [ -x "$SCRATCH/data/ipybox/bin/ipybox" ] && contains "$SCRATCH/record" "arg=$SCRATCH/project" && [ "$(downloads)" = 1 ]'

launch "$FETCHING" CLAUDE_PLUGIN_DATA="$SCRATCH/data" CLAUDE_PROJECT_DIR="$SCRATCH/project" --
check "second start: runs the copy in CLAUDE_PLUGIN_DATA without downloading again" \
    eval 'status_is 0 && [ ! -s "$SCRATCH/err" ] && contains "$SCRATCH/record" "arg=mcp" && [ "$(downloads)" = 1 ]'

make_fake_ipybox "$SCRATCH/data/ipybox/bin/ipybox" "0.0.1"
launch "$FETCHING" CLAUDE_PLUGIN_DATA="$SCRATCH/data" CLAUDE_PROJECT_DIR="$SCRATCH/project" --
check "a copy of another version is replaced by the plugin's version, on the same path" \
    eval 'status_is 0 && [ "$(downloads)" = 2 ] && [ "$("$SCRATCH/data/ipybox/bin/ipybox" --version)" = "ipybox $VERSION" ] && contains "$SCRATCH/record" "arg=mcp"'

# A tarball that is not the one the plugin lists: its binary would leave a mark if it ever ran.
make_release_tarball "$VERSION" "$SCRATCH/releases/v$VERSION/$TARBALL" "touch $SCRATCH/tampered-binary-ran"
launch "$FETCHING" CLAUDE_PLUGIN_DATA="$SCRATCH/data-tampered" --
check "a tampered tarball is refused with both checksums, nothing from it unpacked or run, exit 127" \
    eval 'status_is 127 && contains "$SCRATCH/err" "refusing http://127.0.0.1:$port/v$VERSION/$TARBALL: its SHA-256 is" && [ ! -e "$SCRATCH/tampered-binary-ran" ] && [ ! -e "$SCRATCH/data-tampered/ipybox" ] && [ -z "$(ls -A "$SCRATCH/data-tampered")" ]'
cp "$SCRATCH/good/$TARBALL" "$SCRATCH/releases/v$VERSION/$TARBALL"
launch "$FETCHING" CLAUDE_PLUGIN_DATA="$SCRATCH/data-control" --
check "control: the same start with the listed tarball is accepted" eval 'status_is 0 && [ -x "$SCRATCH/data-control/ipybox/bin/ipybox" ]'

launch "$FETCHING" CLAUDE_PLUGIN_DATA="$SCRATCH/data-offline" IPYBOX_RELEASE_URL="http://127.0.0.1:1/nothing" --
check "an unreachable release URL (IPYBOX_RELEASE_URL) gives the install hint, exit 127" \
    eval 'status_is 127 && contains "$SCRATCH/err" "could not download http://127.0.0.1:1/nothing/v$VERSION/$TARBALL" && contains "$SCRATCH/err" "sudo apt-get install ./ipybox_${VERSION}_" && contains "$SCRATCH/err" "install.sh"'

# --- macOS: the launcher picks the macOS tarball ---------------------------------------------
# A fake uname says Darwin arm64 (or another system); the same loopback server serves the release.
MAC_TARBALL="ipybox-$VERSION-macos-arm64.tar.gz"
fake_uname() {  # fake_uname <dir> <system> <machine>
    mkdir -p "$1"
    printf '#!/bin/sh\ncase "$1" in -s) echo %s ;; -m) echo %s ;; *) echo %s ;; esac\n' "$2" "$3" "$2" > "$1/uname"
    chmod +x "$1/uname"
}
fake_uname "$SCRATCH/darwinbin" Darwin arm64
fake_uname "$SCRATCH/freebsdbin" FreeBSD amd64
mac_downloads() { grep -c "GET /v$VERSION/$MAC_TARBALL" "$SCRATCH/http.log"; }

launch "$FETCHING" PATH="$SCRATCH/darwinbin:/usr/bin:/bin" CLAUDE_PLUGIN_DATA="$SCRATCH/data-mac-none" --
check "macOS, release.txt without a macOS checksum: says this release has no macOS build, fetches nothing, exit 127" \
    eval 'status_is 127 && contains "$SCRATCH/err" "this release ($VERSION) has no macOS build for arm64" && contains "$SCRATCH/err" "no checksum for $MAC_TARBALL" && lacks "$SCRATCH/err" "downloading" && contains "$SCRATCH/err" "pip install --user uv" && [ ! -e "$SCRATCH/data-mac-none/ipybox" ]'

make_release_tarball "$VERSION" "$SCRATCH/good/$MAC_TARBALL"
cp "$SCRATCH/good/$MAC_TARBALL" "$SCRATCH/releases/v$VERSION/"
cp -r "$ROOT/plugins/codeact-default" "$SCRATCH/fetching-mac"
{
    grep '^#' "$ROOT/plugins/codeact-default/release.txt"
    echo "url http://127.0.0.1:$port"
    echo "sha256 $TARBALL $(sha256sum "$SCRATCH/good/$TARBALL" | cut -d ' ' -f 1)"
    echo "sha256 $MAC_TARBALL $(sha256sum "$SCRATCH/good/$MAC_TARBALL" | cut -d ' ' -f 1)"
} > "$SCRATCH/fetching-mac/release.txt"
FETCHING_MAC="$SCRATCH/fetching-mac/bin/ipybox-mcp"
launch "$FETCHING_MAC" PATH="$SCRATCH/darwinbin:/usr/bin:/bin" CLAUDE_PLUGIN_DATA="$SCRATCH/data-mac" CLAUDE_PROJECT_DIR="$SCRATCH/project" --
check "macOS arm64: downloads ipybox-<version>-macos-arm64.tar.gz (not the Linux one), unpacks and runs it" \
    eval 'status_is 0 && contains "$SCRATCH/err" "downloading ipybox $VERSION from http://127.0.0.1:$port/v$VERSION/$MAC_TARBALL" && [ -x "$SCRATCH/data-mac/ipybox/bin/ipybox" ] && [ ! -e "$SCRATCH/data-mac/ipybox/tree" ] && contains "$SCRATCH/record" "arg=$SCRATCH/project" && [ "$(mac_downloads)" = 1 ]'
make_fake_ipybox "$SCRATCH/data-mac/ipybox/bin/ipybox" "0.0.1"
launch "$FETCHING_MAC" PATH="$SCRATCH/darwinbin:/usr/bin:/bin" CLAUDE_PLUGIN_DATA="$SCRATCH/data-mac" CLAUDE_PROJECT_DIR="$SCRATCH/project" --
check "macOS: a copy of another version is replaced on the same path (without GNU mv -T)" \
    eval 'status_is 0 && [ "$(mac_downloads)" = 2 ] && [ "$("$SCRATCH/data-mac/ipybox/bin/ipybox" --version)" = "ipybox $VERSION" ] && [ ! -e "$SCRATCH/data-mac/ipybox/tree" ] && [ ! -e "$SCRATCH/data-mac/.previous" ]'
make_release_tarball "$VERSION" "$SCRATCH/releases/v$VERSION/$MAC_TARBALL" "touch $SCRATCH/tampered-mac-ran"
launch "$FETCHING_MAC" PATH="$SCRATCH/darwinbin:/usr/bin:/bin" CLAUDE_PLUGIN_DATA="$SCRATCH/data-mac-tampered" --
check "macOS: a tarball other than the listed one is refused, nothing from it run" \
    eval 'status_is 127 && contains "$SCRATCH/err" "refusing http://127.0.0.1:$port/v$VERSION/$MAC_TARBALL" && [ ! -e "$SCRATCH/tampered-mac-ran" ] && [ ! -e "$SCRATCH/data-mac-tampered/ipybox" ]'
cp "$SCRATCH/good/$MAC_TARBALL" "$SCRATCH/releases/v$VERSION/$MAC_TARBALL"
launch "$FETCHING_MAC" CLAUDE_PLUGIN_DATA="$SCRATCH/data-linux-beside-mac" --
check "control: on Linux the same release.txt gives the Linux tarball" \
    eval 'status_is 0 && contains "$SCRATCH/err" "/v$VERSION/$TARBALL" && lacks "$SCRATCH/err" "$MAC_TARBALL"'
launch "$FETCHING_MAC" PATH="$SCRATCH/freebsdbin:/usr/bin:/bin" CLAUDE_PLUGIN_DATA="$SCRATCH/data-freebsd" --
check "another system: no prebuilt ipybox, only Linux and macOS binaries are released, exit 127" \
    eval 'status_is 127 && contains "$SCRATCH/err" "no prebuilt ipybox for FreeBSD amd64; only Linux and macOS binaries are released" && lacks "$SCRATCH/err" "downloading"'

# --- uv: the wheel of the plugin's version through uvx ----------------------------------------
# Fake uv tools record how they were run; none of them reaches a network.
make_fake_runner() {  # make_fake_runner <path>
    mkdir -p "$(dirname "$1")"
    cat > "$1" <<EOF
#!/bin/sh
{ printf 'runner=%s\n' "\$0"; printf 'cwd=%s\n' "\$PWD"; for a in "\$@"; do printf 'arg=%s\n' "\$a"; done; } > "$SCRATCH/record"
EOF
    chmod +x "$1"
}
make_fake_runner "$SCRATCH/uvbin/uvx"
make_fake_runner "$SCRATCH/uvonly/uv"
make_fake_runner "$SCRATCH/uvhome/.local/bin/uvx"
args_are() { [ "$(grep ^arg= "$SCRATCH/record" | tr "\n" " ")" = "$1" ]; }
UVX_ARGS="arg=--from arg=ipybox-native==$VERSION arg=ipybox arg=mcp arg=--workspace arg=$SCRATCH/project "

launch "$DEFAULT" PATH="$SCRATCH/uvbin:/usr/bin:/bin" CLAUDE_PROJECT_DIR="$SCRATCH/project" --
check "no ipybox, uvx on PATH: runs 'uvx --from ipybox-native==<plugin version> ipybox mcp --workspace <project>'" \
    eval 'status_is 0 && contains "$SCRATCH/record" "runner=$SCRATCH/uvbin/uvx" && args_are "$UVX_ARGS"'
check "the uvx start says what it does and how to raise MCP_TIMEOUT" \
    eval 'contains "$SCRATCH/err" "starting ipybox-native==$VERSION through" && contains "$SCRATCH/err" "MCP_TIMEOUT"'

launch "$SANDBOX" PATH="$SCRATCH/uvbin:/usr/bin:/bin" CLAUDE_PROJECT_DIR="$SCRATCH/project" HOME="$SCRATCH/nohome" -- --sandbox
check "arguments after the workspace reach ipybox mcp through uvx" \
    eval 'args_are "${UVX_ARGS}arg=--sandbox "'

launch "$DEFAULT" PATH="$SCRATCH/fakebin:$SCRATCH/uvbin:/usr/bin:/bin" CLAUDE_PROJECT_DIR="$SCRATCH/project" --
check "an installed ipybox of the plugin's version comes before uvx" \
    eval 'status_is 0 && lacks "$SCRATCH/record" "runner=" && contains "$SCRATCH/record" "arg=mcp" && [ ! -s "$SCRATCH/err" ]'

mkdir -p "$SCRATCH/oldbin"
make_fake_ipybox "$SCRATCH/oldbin/ipybox" "0.0.1"
launch "$DEFAULT" PATH="$SCRATCH/oldbin:$SCRATCH/uvbin:/usr/bin:/bin" CLAUDE_PROJECT_DIR="$SCRATCH/project" --
check "pinned: an installed ipybox of another version is passed over for uvx of the plugin's version" \
    eval 'status_is 0 && args_are "$UVX_ARGS" && contains "$SCRATCH/err" "is version '"'"'0.0.1'"'"', not this plugin'"'"'s $VERSION: using uvx"'
launch "$DEFAULT" PATH="$SCRATCH/oldbin:/usr/bin:/bin" CLAUDE_PROJECT_DIR="$SCRATCH/project" --
check "control: without uv and without a release, the other version starts, with the warning" \
    eval 'status_is 0 && lacks "$SCRATCH/record" "runner=" && contains "$SCRATCH/err" "but this plugin is $VERSION"'

launch "$DEFAULT" PATH="$SCRATCH/uvonly:/usr/bin:/bin" CLAUDE_PROJECT_DIR="$SCRATCH/project" --
check "with uv but no uvx: 'uv tool run --from ipybox-native==<version> ipybox mcp'" \
    eval 'contains "$SCRATCH/record" "runner=$SCRATCH/uvonly/uv" && args_are "arg=tool arg=run $UVX_ARGS"'

launch "$DEFAULT" HOME="$SCRATCH/uvhome" CLAUDE_PROJECT_DIR="$SCRATCH/project" --
check "uvx where uv's installer puts it (~/.local/bin), though not on Claude Code's PATH" \
    eval 'contains "$SCRATCH/record" "runner=$SCRATCH/uvhome/.local/bin/uvx" && args_are "$UVX_ARGS"'

launch "$DEFAULT" --
check "with nothing at all: the three ways to install, each with the plugin's version" \
    eval 'status_is 127 && contains "$SCRATCH/err" "pip install --user uv" && contains "$SCRATCH/err" "pip install --user '"'"'ipybox-native==$VERSION'"'"'" && contains "$SCRATCH/err" "3. from source: $ROOT/install.sh"'

# The release URL from the marketplace's GitHub source, for a plugin copy laid out as Claude Code
# installs it (<plugins>/cache/<marketplace>/<plugin>/<version>) whose release.txt has checksums
# and no url. A fake curl records the URL it is asked for and fails as offline.
plugins_dir="$SCRATCH/home/.claude/plugins"
cached="$plugins_dir/cache/ipybox/codeact-default/$VERSION"
mkdir -p "$(dirname "$cached")" "$SCRATCH/curlbin"
cp -r "$ROOT/plugins/codeact-default" "$cached"
{ grep '^#' "$ROOT/plugins/codeact-default/release.txt"; echo "sha256 $TARBALL 0000"; } > "$cached/release.txt"
printf '#!/bin/sh\nfor a in "$@"; do last="$a"; done\necho "$last" > %s/curl-url\nexit 6\n' "$SCRATCH" > "$SCRATCH/curlbin/curl"
chmod +x "$SCRATCH/curlbin/curl"
echo '{"ipybox": {"source": {"source": "github", "repo": "someowner/somerepo"}}}' > "$plugins_dir/known_marketplaces.json"
launch "$cached/bin/ipybox-mcp" PATH="$SCRATCH/curlbin:/usr/bin:/bin" CLAUDE_PLUGIN_DATA="$SCRATCH/data-derived" --
check "no url in release.txt: the tarball comes from the marketplace's GitHub repository's releases" \
    eval 'status_is 127 && contains "$SCRATCH/err" "from https://github.com/someowner/somerepo/releases/download/v$VERSION/$TARBALL" && [ "$(cat "$SCRATCH/curl-url")" = "https://github.com/someowner/somerepo/releases/download/v$VERSION/$TARBALL" ]'
echo '{"ipybox": {"source": {"source": "git", "url": "https://github.com/other/repo.git"}}}' > "$plugins_dir/known_marketplaces.json"
launch "$cached/bin/ipybox-mcp" PATH="$SCRATCH/curlbin:/usr/bin:/bin" CLAUDE_PLUGIN_DATA="$SCRATCH/data-derived" --
check "a marketplace added by its GitHub git URL gives the same releases URL" \
    contains "$SCRATCH/err" "from https://github.com/other/repo/releases/download/v$VERSION/"
echo '{"ipybox": {"source": {"source": "directory", "path": "/srv/marketplace"}}}' > "$plugins_dir/known_marketplaces.json"
rm -f "$SCRATCH/curl-url"
launch "$cached/bin/ipybox-mcp" PATH="$SCRATCH/curlbin:/usr/bin:/bin" CLAUDE_PLUGIN_DATA="$SCRATCH/data-derived" --
check "control: a marketplace that is not on GitHub gives no URL, nothing is downloaded" \
    eval 'status_is 127 && contains "$SCRATCH/err" "no release URL" && [ ! -e "$SCRATCH/curl-url" ]'
rm -rf "$SCRATCH/home/.claude"

# --- sandbox -------------------------------------------------------------------------------
check "codeact-default and codeact-sandbox share one launcher (identical files)" cmp -s "$DEFAULT" "$SANDBOX"

launch "$SANDBOX" IPYBOX_BIN="$SCRATCH/fakebin/ipybox" CLAUDE_PROJECT_DIR="$SCRATCH/project" -- --sandbox
check "--sandbox without a sandbox-config.json passes no config" \
    eval 'contains "$SCRATCH/record" "arg=--sandbox" && lacks "$SCRATCH/record" "arg=--sandbox-config"'

# A sandbox-config.json in the project is what a sandboxed kernel could have written: ignored.
echo '{}' > "$SCRATCH/project/sandbox-config.json"
launch "$SANDBOX" IPYBOX_BIN="$SCRATCH/fakebin/ipybox" CLAUDE_PROJECT_DIR="$SCRATCH/project" -- --sandbox
check "--sandbox ignores the project's sandbox-config.json (kernel-writable) and says where to move it" \
    eval 'lacks "$SCRATCH/record" "arg=--sandbox-config" && contains "$SCRATCH/err" ".claude/ipybox-sandbox.json"'

mkdir -p "$SCRATCH/project/.claude"
echo '{}' > "$SCRATCH/project/.claude/ipybox-sandbox.json"
launch "$SANDBOX" IPYBOX_BIN="$SCRATCH/fakebin/ipybox" CLAUDE_PROJECT_DIR="$SCRATCH/project" -- --sandbox
check "--sandbox passes the project's .claude/ipybox-sandbox.json" \
    eval '[ "$(grep ^arg= "$SCRATCH/record" | tr "\n" " ")" = "arg=mcp arg=--workspace arg=$SCRATCH/project arg=--sandbox arg=--sandbox-config arg=$SCRATCH/project/.claude/ipybox-sandbox.json " ]'
rm "$SCRATCH/project/.claude/ipybox-sandbox.json"

mkdir -p "$SCRATCH/xdg/ipybox"
echo '{}' > "$SCRATCH/xdg/ipybox/sandbox-config.json"
launch "$SANDBOX" IPYBOX_BIN="$SCRATCH/fakebin/ipybox" CLAUDE_PROJECT_DIR="$SCRATCH/project" XDG_CONFIG_HOME="$SCRATCH/xdg" -- --sandbox
check "--sandbox falls back to the user's \$XDG_CONFIG_HOME/ipybox/sandbox-config.json" \
    contains "$SCRATCH/record" "arg=$SCRATCH/xdg/ipybox/sandbox-config.json"
rm -r "$SCRATCH/xdg"

launch "$SANDBOX" IPYBOX_BIN="$SCRATCH/fakebin/ipybox" CLAUDE_PROJECT_DIR="$SCRATCH/project" -- --sandbox --sandbox-config /etc/x.json
check "an explicit --sandbox-config is not doubled" \
    eval '[ "$(grep -c "arg=--sandbox-config" "$SCRATCH/record")" = 1 ] && contains "$SCRATCH/record" "arg=/etc/x.json"'

launch "$DEFAULT" IPYBOX_BIN="$SCRATCH/fakebin/ipybox" CLAUDE_PROJECT_DIR="$SCRATCH/project" --
check "codeact-default ignores sandbox-config.json" lacks "$SCRATCH/record" "arg=--sandbox"
rm "$SCRATCH/project/sandbox-config.json"

# --- under --sandbox nothing in the project runs ------------------------------------------------
# What a sandboxed kernel can write (the project) must not be run on the host by the launcher: an
# ipybox, uvx or sed planted in <project>/.venv/bin, found through a venv on Claude Code's PATH,
# would leave a mark. Each control runs the very same files with the project elsewhere (the attack
# primitive works there: they lie outside that workspace, and run).
planted="$SCRATCH/project/.venv/bin"
mkdir -p "$planted" "$SCRATCH/other-project"
make_planted() {  # make_planted <name> <shell line>: a program that leaves $SCRATCH/ran-<name>
    printf '#!/bin/sh\ntouch %s/ran-%s\n%s\n' "$SCRATCH" "$1" "$2" > "$planted/$1"
    chmod +x "$planted/$1"
}
make_planted ipybox "[ \"\$1\" = --version ] && echo 'ipybox $VERSION'; exit 0"
make_planted uvx "exit 0"
make_planted sed 'exec /usr/bin/sed "$@"'
ran() { [ -e "$SCRATCH/ran-$1" ]; }
VENV_PATH="PATH=$planted:/usr/bin:/bin"

launch "$SANDBOX" "$VENV_PATH" CLAUDE_PROJECT_DIR="$SCRATCH/project" -- --sandbox
check "--sandbox: a planted <project>/.venv/bin/ipybox, uvx and sed on PATH are not run; ipybox and uvx are named" \
    eval '! ran ipybox && ! ran uvx && ! ran sed && status_is 127 && contains "$SCRATCH/err" "not running $planted/ipybox" && contains "$SCRATCH/err" "not running $planted/uvx" && contains "$SCRATCH/err" "native ipybox binary was not found"'
launch "$SANDBOX" "$VENV_PATH" CLAUDE_PROJECT_DIR="$SCRATCH/other-project" -- --sandbox
check "control: with the project elsewhere, the same PATH runs that ipybox and sed" \
    eval 'ran ipybox && ran sed && status_is 0'
rm -f "$SCRATCH"/ran-*

mv "$planted/ipybox" "$SCRATCH/planted-ipybox"
launch "$SANDBOX" "$VENV_PATH" CLAUDE_PROJECT_DIR="$SCRATCH/project" -- --sandbox
check "--sandbox: a planted uvx is not run either when it would be the runner" \
    eval '! ran uvx && status_is 127 && contains "$SCRATCH/err" "not running $planted/uvx"'
launch "$SANDBOX" "$VENV_PATH" CLAUDE_PROJECT_DIR="$SCRATCH/other-project" -- --sandbox
check "control: with the project elsewhere, that uvx runs" eval 'ran uvx && status_is 0'
rm -f "$SCRATCH"/ran-*
mv "$SCRATCH/planted-ipybox" "$planted/ipybox"

# Links: a PATH entry outside the project that leads into it, the project reached through a link,
# and an ipybox outside the project that is a link to a file inside it.
ln -s "$planted" "$SCRATCH/venv-link"
ln -s "$SCRATCH/project" "$SCRATCH/project-link"
mkdir -p "$SCRATCH/linkbin"
ln -s "$planted/ipybox" "$SCRATCH/linkbin/ipybox"
launch "$SANDBOX" PATH="$SCRATCH/venv-link:/usr/bin:/bin" CLAUDE_PROJECT_DIR="$SCRATCH/project" -- --sandbox
check "--sandbox: a PATH entry that is a link into the project is dropped" \
    eval '! ran ipybox && ! ran sed && contains "$SCRATCH/err" "not running $SCRATCH/venv-link/ipybox"'
launch "$SANDBOX" "$VENV_PATH" CLAUDE_PROJECT_DIR="$SCRATCH/project-link" -- --sandbox
check "--sandbox: the project given through a link is the same project" eval '! ran ipybox && ! ran sed'
launch "$SANDBOX" PATH="$SCRATCH/linkbin:/usr/bin:/bin" CLAUDE_PROJECT_DIR="$SCRATCH/project" -- --sandbox
check "--sandbox: an ipybox outside the project that links to a file inside it is not run" \
    eval '! ran ipybox && contains "$SCRATCH/err" "not running $SCRATCH/linkbin/ipybox (which is $planted/ipybox)"'
launch "$SANDBOX" PATH="$SCRATCH/linkbin:/usr/bin:/bin" CLAUDE_PROJECT_DIR="$SCRATCH/other-project" -- --sandbox
check "control: with the project elsewhere, that link runs" eval 'ran ipybox && status_is 0'
rm -f "$SCRATCH"/ran-*

# The other places the launcher looks, when they lie in the project.
mkdir -p "$SCRATCH/project/.local/bin" "$SCRATCH/project/data/ipybox/bin"
cp "$planted/ipybox" "$SCRATCH/project/.local/bin/ipybox"
cp "$planted/ipybox" "$SCRATCH/project/data/ipybox/bin/ipybox"
launch "$SANDBOX" HOME="$SCRATCH/project" CLAUDE_PLUGIN_DATA="$SCRATCH/project/data" CLAUDE_PROJECT_DIR="$SCRATCH/project" -- --sandbox
check "--sandbox with the project as HOME: ~/.local/bin/ipybox and the release copy in the data folder are not run" \
    eval '! ran ipybox && status_is 127 && contains "$SCRATCH/err" "not running $SCRATCH/project/.local/bin/ipybox" && contains "$SCRATCH/err" "not running $SCRATCH/project/data/ipybox/bin/ipybox"'
launch "$SANDBOX" HOME="$SCRATCH/project" CLAUDE_PLUGIN_DATA="$SCRATCH/project/data" CLAUDE_PROJECT_DIR="$SCRATCH/other-project" -- --sandbox
check "control: with the project elsewhere, that ~/.local/bin/ipybox runs" eval 'ran ipybox && status_is 0'
rm -f "$SCRATCH"/ran-*
launch "$SANDBOX" IPYBOX_BIN="$planted/ipybox" CLAUDE_PROJECT_DIR="$SCRATCH/project" -- --sandbox
check "--sandbox: an IPYBOX_BIN in the project is refused, exit 127" \
    eval '! ran ipybox && status_is 127 && contains "$SCRATCH/err" "not running $planted/ipybox"'
rm -rf "$SCRATCH/project/.local" "$SCRATCH/project/data"

# The release is not fetched into a data folder in the project (a kernel could swap the copy).
launch "$FETCHING" CLAUDE_PLUGIN_DATA="$SCRATCH/project/data" CLAUDE_PROJECT_DIR="$SCRATCH/project" -- --sandbox
check "--sandbox: no release is fetched into a data folder in the project" \
    eval 'status_is 127 && contains "$SCRATCH/err" "not fetching into $SCRATCH/project/data" && [ ! -e "$SCRATCH/project/data/ipybox" ]'
rm -rf "$SCRATCH/project/data"

# Empty and relative PATH entries mean the current directory: dropped, whatever it is.
cp "$planted/ipybox" "$SCRATCH/elsewhere/ipybox"
launch "$SANDBOX" PATH=".::/usr/bin:/bin" CLAUDE_PROJECT_DIR="$SCRATCH/project" -- --sandbox
check "--sandbox: empty and relative PATH entries are dropped" eval '! ran ipybox && status_is 127'
rm "$SCRATCH/elsewhere/ipybox"

launch "$SANDBOX" PATH="$planted:$SCRATCH/fakebin:/usr/bin:/bin" CLAUDE_PROJECT_DIR="$SCRATCH/project" -- --sandbox
check "--sandbox: ipybox gets the trusted PATH (real paths, nothing in the project)" \
    eval '! ran ipybox && contains "$SCRATCH/record" "path=$SCRATCH/fakebin:" && lacks "$SCRATCH/record" "$planted"'

launch "$DEFAULT" "$VENV_PATH" CLAUDE_PROJECT_DIR="$SCRATCH/project" --
check "codeact-default (no --sandbox) runs an ipybox in the project's venv: the rule is the sandbox's" \
    eval 'ran ipybox && status_is 0'
rm -rf "$SCRATCH"/ran-* "$planted" "$SCRATCH/venv-link" "$SCRATCH/project-link" "$SCRATCH/linkbin"

# --- docker --------------------------------------------------------------------------------
# A fake docker: `image inspect` answers per $FAKE_DOCKER_MODE, `run` records its arguments.
mkdir -p "$SCRATCH/dockerbin"
cat > "$SCRATCH/dockerbin/docker" <<EOF
#!/bin/sh
if [ "\$1 \$2" = "image inspect" ]; then
    case "\${FAKE_DOCKER_MODE:-ok}" in
        missing) echo "Error: No such image: \$5" >&2; exit 1 ;;
        daemon) echo "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?" >&2; exit 1 ;;
        otheruid) echo 4321; exit 0 ;;
        *) id -u; exit 0 ;;
    esac
fi
{ printf 'cwd=%s\n' "\$PWD"; for a in "\$@"; do printf 'arg=%s\n' "\$a"; done; } > "$SCRATCH/record"
EOF
chmod +x "$SCRATCH/dockerbin/docker"
DOCKER_PATH="PATH=$SCRATCH/dockerbin:/usr/bin:/bin"

launch "$DOCKER" "$DOCKER_PATH" CLAUDE_PROJECT_DIR="$SCRATCH/project" --
expected="arg=run arg=-i arg=--rm arg=--mount arg=type=bind,source=$SCRATCH/project,target=/app/workspace arg=ipybox:$VERSION arg=ipybox arg=mcp arg=--workspace arg=/app/workspace "
check "docker: runs ipybox:<version> with the project mounted at /app/workspace" \
    eval 'status_is 0 && [ "$(grep ^arg= "$SCRATCH/record" | tr "\n" " ")" = "$expected" ] && [ ! -s "$SCRATCH/err" ]'

launch "$DOCKER" "$DOCKER_PATH" CLAUDE_PROJECT_DIR="$SCRATCH/project" IPYBOX_DOCKER_IMAGE=my/ipybox:dev \
    IPYBOX_DOCKER_RUN_ARGS="--network none -e KERNEL_ENV_MODE=test" --
check "docker: IPYBOX_DOCKER_IMAGE and IPYBOX_DOCKER_RUN_ARGS are used" \
    eval 'grep ^arg= "$SCRATCH/record" | tr "\n" " " | grep -qF "arg=--network arg=none arg=-e arg=KERNEL_ENV_MODE=test arg=my/ipybox:dev arg=ipybox"'

launch "$DOCKER" "$DOCKER_PATH" FAKE_DOCKER_MODE=missing --
check "docker: a missing image names it, ./docker-build.sh, docker load and docker pull, exit 1" \
    eval 'status_is 1 && contains "$SCRATCH/err" "image ipybox:$VERSION does not exist" && contains "$SCRATCH/err" "$ROOT/docker-build.sh" && contains "$SCRATCH/err" "docker load -i" && contains "$SCRATCH/err" "docker pull <registry>/ipybox:$VERSION" && [ ! -e "$SCRATCH/record" ]'

launch "$DOCKER" "$DOCKER_PATH" FAKE_DOCKER_MODE=daemon --
check "docker: an unreachable daemon is reported as such, exit 1" \
    eval 'status_is 1 && contains "$SCRATCH/err" "Cannot connect to the Docker daemon" && contains "$SCRATCH/err" "Start the Docker daemon"'

launch "$DOCKER" "$DOCKER_PATH" FAKE_DOCKER_MODE=otheruid --
check "docker: an image built for another UID is warned about, and still runs" \
    eval 'status_is 0 && contains "$SCRATCH/err" "runs as UID 4321" && contains "$SCRATCH/record" "arg=run"'

# The container's kernel writes the project: a docker planted in <project>/.venv/bin is not run.
mkdir -p "$planted"
make_planted docker "exit 0"
launch "$DOCKER" PATH="$planted:$SCRATCH/dockerbin:/usr/bin:/bin" CLAUDE_PROJECT_DIR="$SCRATCH/project" --
check "docker: a planted <project>/.venv/bin/docker is not run, and is named; the one outside is" \
    eval '! ran docker && status_is 0 && contains "$SCRATCH/record" "arg=run" && contains "$SCRATCH/err" "not running $planted/docker"'
launch "$DOCKER" PATH="$planted:$SCRATCH/dockerbin:/usr/bin:/bin" CLAUDE_PROJECT_DIR="$SCRATCH/other-project" --
check "control: with the project elsewhere, that docker runs" eval 'ran docker && status_is 0'
rm -rf "$SCRATCH"/ran-* "$planted"

mkdir -p "$SCRATCH/nodocker"
for tool in sed head dirname id; do ln -s "$(command -v "$tool")" "$SCRATCH/nodocker/$tool"; done
launch "$DOCKER" PATH="$SCRATCH/nodocker" --
check "docker: no docker on PATH says so, exit 127" \
    eval 'status_is 127 && contains "$SCRATCH/err" "docker was not found"'

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
