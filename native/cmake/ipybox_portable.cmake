# IPYBOX_PORTABLE: a binary for the portable tarball, which needs nothing from the system but glibc.
#
# Linked statically: libstdc++, libgcc and OpenSSL (Boost is header-only); spdlog and fmt are used
# header-only (Debian ships no .a for them). The binary needs only glibc: the portable tarball
# (packaging/make-tarball.sh) and the wheel (pyproject.toml) both carry it.
#
# ipybox itself speaks ZMTP without libzmq; only the tests' fake kernel links ZeroMQ (cppzmq), so
# its static archives and their private dependencies (libsodium, OpenPGM, NORM, libbsd; MIT
# Kerberos for GSSAPI stays shared) are looked for only when the tests are built.
#
# Included by ipybox_dependencies.cmake before the find_package calls, which then find the targets
# defined here instead of Debian's shared ones.
option(IPYBOX_PORTABLE "Link for the portable tarball: static libstdc++, Boost, OpenSSL, ZeroMQ" OFF)
if(NOT IPYBOX_PORTABLE)
    return()
endif()

add_link_options(-static-libstdc++ -static-libgcc)
set(Boost_USE_STATIC_LIBS ON)
set(OPENSSL_USE_STATIC_LIBS TRUE)

# spdlog::spdlog header-only on a header-only fmt, under the name the modules link.
find_path(IPYBOX_SPDLOG_INCLUDE_DIR spdlog/spdlog.h REQUIRED)
add_library(spdlog::spdlog INTERFACE IMPORTED)
set_target_properties(spdlog::spdlog PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${IPYBOX_SPDLOG_INCLUDE_DIR}"
    INTERFACE_COMPILE_DEFINITIONS "SPDLOG_FMT_EXTERNAL;FMT_HEADER_ONLY=1")
set(spdlog_FOUND TRUE)

if(NOT IPYBOX_BUILD_TESTS)
    return()
endif()
# libzmq (the target cppzmq links) as the static archive with its private dependencies, from
# `pkg-config --static --libs libzmq`; the linker keeps only what ZeroMQ uses.
function(ipybox_static_library variable name)
    find_library(${variable} NAMES lib${name}.a REQUIRED)
endfunction()
ipybox_static_library(IPYBOX_ZMQ_ARCHIVE zmq)
find_path(IPYBOX_ZMQ_INCLUDE_DIR zmq.h REQUIRED)
set(zmq_private_archives)
foreach(name sodium pgm norm protokit bsd md)
    ipybox_static_library(IPYBOX_${name}_ARCHIVE ${name})
    list(APPEND zmq_private_archives ${IPYBOX_${name}_ARCHIVE})
endforeach()
find_library(IPYBOX_GSSAPI_LIBRARY NAMES gssapi_krb5 PATH_SUFFIXES mit-krb5 REQUIRED)
add_library(libzmq STATIC IMPORTED)
set_target_properties(libzmq PROPERTIES
    IMPORTED_LOCATION "${IPYBOX_ZMQ_ARCHIVE}"
    INTERFACE_INCLUDE_DIRECTORIES "${IPYBOX_ZMQ_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "${zmq_private_archives};${IPYBOX_GSSAPI_LIBRARY};Threads::Threads;rt;m")
