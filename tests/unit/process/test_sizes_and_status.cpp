// Sizes as users write them and exit statuses in the one wording every child shares.
#include <doctest/doctest.h>
#include <sys/wait.h>

#include <csignal>

#include "ipybox/process/containment.hpp"
#include "ipybox/process/exit_status.hpp"

using namespace ipybox::process;

TEST_CASE("sizes parse with binary units, case-insensitively, with or without B or iB") {
    CHECK(parse_bytes("1000") == 1000);
    CHECK(parse_bytes("2G") == 2ULL << 30);
    CHECK(parse_bytes("2g") == 2ULL << 30);
    CHECK(parse_bytes("512M") == 512ULL << 20);
    CHECK(parse_bytes("512MiB") == 512ULL << 20);
    CHECK(parse_bytes("1.5GB") == 3ULL << 29);
    CHECK(parse_bytes("64k") == 64ULL << 10);
}

TEST_CASE("a malformed size is refused with a message that quotes it") {
    for (const char* bad : {"", "G", "-1G", "0", "2X", "1e999"}) {
        CAPTURE(bad);
        try {
            parse_bytes(bad);
            FAIL("accepted");
        } catch (const std::invalid_argument& e) {
            CHECK(std::string(e.what()).find(std::string("'") + bad + "'") != std::string::npos);
        }
    }
}

TEST_CASE("sizes are described in the largest binary unit") {
    CHECK(describe_bytes(2ULL << 30) == "2 GiB");
    CHECK(describe_bytes(512ULL << 20) == "512 MiB");
    CHECK(describe_bytes(3ULL << 29) == "1.5 GiB");
    CHECK(describe_bytes(100) == "100 bytes");
}

TEST_CASE("the default limits protect a laptop: memory at most 4 GiB, 512 processes") {
    const auto limits = default_resource_limits();
    REQUIRE(limits.memory_bytes);
    CHECK(*limits.memory_bytes <= 4ULL << 30);
    CHECK(*limits.memory_bytes > 0);
    CHECK(limits.processes == 512);
    CHECK(limits.file_size_bytes == 4ULL << 30);
    CHECK(limits.open_files == 4096);
    CHECK_FALSE(limits.cpu_seconds);
}

TEST_CASE("exit statuses read the same for every child: code, or signal with its name") {
    CHECK(exit_status::from_wait_status(3 << 8).describe() == "exited with code 3");
    CHECK(exit_status::from_wait_status(SIGKILL).describe() == "killed by signal 9 (SIGKILL)");
    CHECK(exit_status{}.describe() == "ended (its exit status is unknown)");
}
