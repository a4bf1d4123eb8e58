# The ipybox MCP server in a container, for the codeact-docker Claude Code plugin.
#
#   ./docker-build.sh          builds it as ipybox:<version>, running as your UID/GID
#   docker run -i --rm --mount type=bind,source="$PWD",target=/app/workspace \
#       ipybox:<version> ipybox mcp --workspace /app/workspace
#
# Build arguments:
#   BASE_IMAGE   Debian 12 or a derivative (default debian:bookworm-slim)
#   UID, GID     the user the server runs as; files it writes into the mounted workspace get
#                these ids, so pass your own (docker-build.sh does). 0 runs as root.
#   VERSION      recorded as a label; docker-build.sh passes the project version
#   JOBS         parallel compile jobs (default: all cores)
#
# Its inputs: the build context is the project's whole source set (the files git tracks, as
# docker-build.sh packs them), and the build stage copies all of it. No list here names the files
# the build needs, so none can miss one; the default test run configures the project from the
# same context (tests/integration/packaging/docker_context.test.sh). Build it with
# docker-build.sh: a plain `docker build .` would also send build trees and node_modules.
ARG BASE_IMAGE=debian:bookworm-slim

# --- build: the native binary, with the same Debian packages and steps as ./install.sh ---------
FROM ${BASE_IMAGE} AS build
ARG JOBS
WORKDIR /src
COPY install.sh ./
# Only install.sh's package list matters here; the sources come after, so that editing them does
# not invalidate this (slow) layer.
RUN ./install.sh --deps-only && rm -rf /var/lib/apt/lists/*
COPY . .
RUN cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DIPYBOX_BUILD_TESTS=OFF \
        -DIPYBOX_BUILD_BENCH=OFF -DCMAKE_INSTALL_PREFIX=/usr/local \
    && cmake --build build -j "${JOBS:-$(nproc)}" \
    && DESTDIR=/staging cmake --install build
# The scaffold of saved code actions belongs next to the Python runtime (share/ipybox/); put it
# there if this version's install rules do not.
RUN test -d /staging/usr/local/share/ipybox/gentools-template \
    || cp -r gentools-template /staging/usr/local/share/ipybox/gentools-template
# The Debian packages that hold the shared libraries the binary links, for the runtime stage.
RUN ldd /staging/usr/local/bin/ipybox | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' \
    | while read -r library; do dpkg -S "*/$(basename "$library")"; done \
    | cut -d: -f1 | sort -u > /staging/runtime-packages.txt \
    && cat /staging/runtime-packages.txt

# --- runtime ----------------------------------------------------------------------------------
FROM ${BASE_IMAGE}
ARG UID=1000
ARG GID=1000
ARG VERSION=unknown
LABEL org.opencontainers.image.title="ipybox" \
      org.opencontainers.image.description="ipybox MCP server: a stateful IPython kernel with typed MCP tool APIs" \
      org.opencontainers.image.version="${VERSION}" \
      ipybox.uid="${UID}" ipybox.gid="${GID}"

COPY --from=build /staging/runtime-packages.txt /tmp/runtime-packages.txt
# Kernel side: Debian's Python with ipykernel, Pydantic, matplotlib, pip (for install_package).
# python3-munkres satisfies a dependency of matplotlib's fonttools that would otherwise pull in
# SciPy and a compiler (about 300 MB).
# Node.js and npm: many MCP servers users register are npm packages (npx ...). tini reaps the
# orphans that MCP servers and shell commands leave behind, which PID 1 must do.
RUN apt-get update -qq \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        $(cat /tmp/runtime-packages.txt) \
        python3 python3-ipykernel python3-jupyter-client python3-zmq python3-pydantic \
        python3-matplotlib python3-numpy python3-pip python3-munkres \
        nodejs npm git ca-certificates tini \
    && rm -rf /var/lib/apt/lists/* /tmp/runtime-packages.txt

COPY --from=build /staging/usr/local/ /usr/local/

# The user the server runs as, with the host user's ids (reusing a group or user that already
# has the id, such as root for 0).
RUN set -e; \
    getent group "${GID}" > /dev/null || groupadd --gid "${GID}" ipybox; \
    getent passwd "${UID}" > /dev/null \
        || useradd --uid "${UID}" --gid "${GID}" --home-dir /home/ipybox --shell /bin/bash ipybox; \
    mkdir -p /home/ipybox /app/workspace; \
    chown "${UID}:${GID}" /home/ipybox /app/workspace

USER ${UID}:${GID}
ENV HOME=/home/ipybox \
    LANG=C.UTF-8 \
    PATH=/home/ipybox/.local/bin:/usr/local/bin:/usr/bin:/bin
WORKDIR /app/workspace
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["ipybox", "mcp", "--workspace", "/app/workspace"]
