// core::own_executable names the running program's file, links resolved, on every platform: the
// test binary itself, and the same file when it was started through a link.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <test_paths.hpp>

#include "ipybox/core/own_executable.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path test_binary =
    ipybox::testing::binary_dir() / "tests" / "unit" / "core" / "test_core";

}  // namespace

TEST_SUITE("core.own_executable") {
    TEST_CASE("it is this test program, absolute and with no link in it") {
        const auto self = ipybox::core::own_executable();
        REQUIRE(self);
        CHECK(self->is_absolute());
        CHECK(fs::equivalent(*self, test_binary));
        CHECK(fs::canonical(*self) == *self);
    }

    TEST_CASE("started through a link, it is the file the link points to") {
        // The child (this program again, through the link) runs only the case below, which
        // writes what it sees.
        const auto folder = ipybox::testing::fresh_directory("own-executable");
        const auto link = folder / "through-a-link";
        fs::create_symlink(fs::canonical(test_binary), link);
        const auto answer = folder / "answer.txt";
        const std::string command =
            "IPYBOX_TEST_OWN_EXECUTABLE_OUT='" + answer.string() + "' '" + link.string() +
            "' -ts='core.own_executable' -tc='*reports itself*' > /dev/null";
        REQUIRE(std::system(command.c_str()) == 0);
        std::ifstream in(answer);
        std::string seen;
        std::getline(in, seen);
        CHECK(seen == fs::canonical(test_binary).string());
    }

    TEST_CASE("the child of the case above reports itself") {
        const char* out = std::getenv("IPYBOX_TEST_OWN_EXECUTABLE_OUT");
        if (out == nullptr) return;  // run directly: nothing to report
        const auto self = ipybox::core::own_executable();
        std::ofstream(out) << (self ? self->string() : "(none)") << "\n";
    }
}
