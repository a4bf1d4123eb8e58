# The Debian package, made by CPack from the installed tree: `cpack -G DEB` in a configured and
# built tree writes ipybox_<version>_<arch>.deb (release.sh does it for a release).
#
# Depends: the shared libraries the binary links (dpkg-shlibdeps) plus the kernel side from
# Debian's archive; Recommends: what --sandbox runs (bubblewrap, socat, ripgrep; srt needs Node).
# Licence: Apache-2.0, in packaging/copyright (Debian's place for it; lintian wants no other).
# Reproducible: with SOURCE_DATE_EPOCH set, CPack and the changelog below take their times from it.
# Where `cmake --install` puts the binary and its data. A wheel (scikit-build-core sets SKBUILD and
# its SKBUILD_*_DIR): the binary in the wheel's scripts, the data in its data folder, which pip
# and uv install into the environment's bin/ and prefix. An installed wheel then has the layout of
# a prefix install, bin/ipybox beside share/ipybox, where the binary finds its runtime.
if(SKBUILD)
    set(IPYBOX_INSTALL_BINDIR ${SKBUILD_SCRIPTS_DIR})
    set(IPYBOX_INSTALL_DATADIR ${SKBUILD_DATA_DIR}/share)
    return()  # the licences go into the wheel's metadata (pyproject.toml); no Debian files
endif()
set(IPYBOX_INSTALL_BINDIR bin)
set(IPYBOX_INSTALL_DATADIR share)

set(IPYBOX_PACKAGE_MAINTAINER "ipybox developers <maintainers@users.noreply.a-seed-6e7bda3b.example>"
    CACHE STRING "Maintainer field of the Debian package")

# Folders 0755 whatever the umask of the one who builds (Debian policy; and the same bytes).
set(CMAKE_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
    GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)

# Debian policy wants the copyright file and a compressed changelog in /usr/share/doc/<package>.
set(doc_dir share/doc/ipybox)
string(TIMESTAMP IPYBOX_PACKAGE_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
configure_file(${PROJECT_SOURCE_DIR}/packaging/changelog.in ${PROJECT_BINARY_DIR}/packaging/changelog @ONLY)
add_custom_command(
    OUTPUT ${PROJECT_BINARY_DIR}/packaging/changelog.gz
    COMMAND gzip -9nc ${PROJECT_BINARY_DIR}/packaging/changelog > ${PROJECT_BINARY_DIR}/packaging/changelog.gz
    DEPENDS ${PROJECT_BINARY_DIR}/packaging/changelog
    COMMENT "Compressing the package changelog")
add_custom_target(ipybox_package_changelog ALL DEPENDS ${PROJECT_BINARY_DIR}/packaging/changelog.gz)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/copyright ${PROJECT_BINARY_DIR}/packaging/changelog.gz
        DESTINATION ${doc_dir})
install(FILES ${PROJECT_SOURCE_DIR}/packaging/lintian-overrides DESTINATION share/lintian/overrides
        RENAME ipybox)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME ipybox)
set(CPACK_PACKAGE_VENDOR "ipybox developers")
set(CPACK_PACKAGE_CONTACT "${IPYBOX_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "python3, python3-ipykernel, python3-pydantic, python3-matplotlib, python3-pip")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "bubblewrap, socat, ripgrep, nodejs, npm")
# The synopsis, then the extended description: CPack indents it and writes " ." for empty lines.
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "native code-execution sandbox for AI agents")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "ipybox runs Python for an AI agent in a stateful IPython kernel and lets
that code call MCP tools through typed Python APIs generated from the
tools' schemas. Every tool call passes an approval gate; the kernel can
run in a sandbox (bubblewrap, through srt from npm).

This package has the ipybox command (run, generate, doctor, and mcp: an
MCP server for Claude Code and other clients) and its Python runtime.")
include(CPack)
