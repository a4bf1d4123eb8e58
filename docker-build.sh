#!/usr/bin/env bash
# Builds the ipybox Docker image that the codeact-docker Claude Code plugin runs.
#
#   ./docker-build.sh                       tags ipybox:<version> and ipybox:latest
#   ./docker-build.sh --network host        extra arguments go to `docker build`
#
# Environment:
#   UID_IN_IMAGE, GID_IN_IMAGE  user the server runs as (default: yours, from id -u / id -g), so
#                               that files written into your project stay yours
#   BASE_IMAGE                  Debian 12 or a derivative (default debian:bookworm-slim)
#   IMAGE                       repository name (default ipybox)
#   JOBS                        parallel compile jobs inside the build (default: all cores)
#
# The build context is the project's source set, decided here and nowhere else: the files git
# tracks, as they are in the working tree (so local edits are in; a new file is in once it is
# added to git; build trees, node_modules and other untracked files never are). The Dockerfile
# copies all of it, so a file CMake needs cannot be left out of the image by a list that forgot
# it. `./docker-build.sh --context` writes that context as a tar to stdout without Docker: the
# default test run configures the project from it (tests/integration/packaging/docker_context.test.sh).
set -euo pipefail
cd "$(dirname "$0")"

context_tar() {
    if ! git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
        echo "docker-build.sh: run it in a git checkout of ipybox (the image is built from the files git tracks)" >&2
        return 1
    fi
    # Tracked files that exist (one deleted in the working tree is left out, as it would be
    # from a commit of the tree), in a stable order, with neutral owners.
    git ls-files -z --cached | while IFS= read -r -d '' file; do
        if [ -e "$file" ] || [ -L "$file" ]; then printf '%s\0' "$file"; fi
    done | tar --null --files-from=- --create --file=- --owner=0 --group=0 --numeric-owner
}

if [ "${1:-}" = "--context" ]; then
    context_tar
    exit 0
fi

version="$(sed -n 's/^project(ipybox VERSION \([0-9][0-9.]*\).*/\1/p' CMakeLists.txt)"
if [ -z "$version" ]; then
    echo "docker-build.sh: cannot read the project version from CMakeLists.txt" >&2
    exit 1
fi
image="${IMAGE:-ipybox}"
uid="${UID_IN_IMAGE:-$(id -u)}"
gid="${GID_IN_IMAGE:-$(id -g)}"

if ! command -v docker > /dev/null 2>&1; then
    echo "docker-build.sh: docker was not found; install Docker first" >&2
    exit 1
fi

build_args=(--build-arg "UID=$uid" --build-arg "GID=$gid" --build-arg "VERSION=$version")
if [ -n "${BASE_IMAGE:-}" ]; then build_args+=(--build-arg "BASE_IMAGE=$BASE_IMAGE"); fi
if [ -n "${JOBS:-}" ]; then build_args+=(--build-arg "JOBS=$JOBS"); fi

echo "docker-build.sh: building $image:$version (user $uid:$gid)"
context_tar | docker build "${build_args[@]}" --tag "$image:$version" --tag "$image:latest" "$@" -
echo "docker-build.sh: built $image:$version; the codeact-docker plugin runs it"
