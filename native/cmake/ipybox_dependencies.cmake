# Every third-party dependency, found once. All come from Debian 12 packages (see install.sh).
include(ipybox_portable)
find_package(Threads REQUIRED)
find_package(nlohmann_json 3.11 REQUIRED)
if(NOT IPYBOX_PORTABLE)  # else spdlog::spdlog is header-only (ipybox_portable.cmake)
    find_package(spdlog REQUIRED)
endif()
find_package(CLI11 REQUIRED)
find_package(OpenSSL REQUIRED)
# Asio and Beast are header-only: no compiled Boost library is linked (the spawner is ipybox's
# own, process/spawn.hpp).
find_package(Boost 1.74 REQUIRED)
if(IPYBOX_BUILD_TESTS)
    find_package(cppzmq REQUIRED)  # the tests' fake kernel; ipybox speaks ZMTP itself
    find_package(doctest REQUIRED)
    include(doctest)
elseif(IPYBOX_TEST_OBJECTS_ONLY)
    # Only doctest's header: nothing is linked, so neither ZeroMQ nor doctest's CMake package.
    find_path(IPYBOX_DOCTEST_INCLUDE_DIR doctest/doctest.h REQUIRED)
    add_library(doctest::doctest INTERFACE IMPORTED)
    target_include_directories(doctest::doctest INTERFACE ${IPYBOX_DOCTEST_INCLUDE_DIR})
endif()
