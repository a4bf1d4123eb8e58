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
set -euo pipefail
cd "$(dirname "$0")"

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
docker build "${build_args[@]}" --tag "$image:$version" --tag "$image:latest" "$@" .
echo "docker-build.sh: built $image:$version; the codeact-docker plugin runs it"
