#include <doctest/doctest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "ipybox/core/private_directory.hpp"
#include "kernel_command.hpp"

using namespace ipybox;
using namespace ipybox::kernel::detail;

namespace {

// What /bin/sh, having loaded `file` as the kernel's wrapper does, prints for `$name`.
std::string sourced_value(const std::filesystem::path& file, const std::string& name) {
    const std::string command =
        "/bin/sh -c '. \"$0\" && printf %s \"$" + name + "\"' " + file.string();
    FILE* pipe = ::popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::string out;
    std::array<char, 4096> buffer{};
    std::size_t n = 0;
    while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
        out.append(buffer.data(), n);
    ::pclose(pipe);
    return out;
}

}  // namespace

TEST_SUITE("kernel.kernel_command") {
    TEST_CASE("the kernel starts from a bootstrap that takes the current directory off sys.path") {
        const auto command = kernel_command("/usr/bin/python3", "/run/k/kernel.json");
        REQUIRE(command.size() == 5);
        CHECK(command[0] == "/usr/bin/python3");
        CHECK(command[1] == "-c");
        CHECK(command[2].find("del sys.path[0]") < command[2].find("import main"));
        CHECK(command[3] == "-f");
        CHECK(command[4] == "/run/k/kernel.json");
    }

    TEST_CASE("a value read back by /bin/sh is the value written, whatever it holds") {
        core::private_directory directory("ipybox-envfile-");
        std::mt19937 random(20261125);
        // Quotes, newlines, $, backticks, backslashes, UTF-8: every byte but NUL.
        for (int round = 0; round < 40; ++round) {
            std::string value;
            for (auto n = random() % 40; n > 0; --n) {
                const auto pick = random() % 8;
                value += pick == 0   ? '\''
                         : pick == 1 ? '\n'
                         : pick == 2 ? '$'
                         : pick == 3 ? '`'
                         : pick == 4 ? '\\'
                                     : static_cast<char>(1 + random() % 255);
            }
            const auto file = directory.path() / ("env-" + std::to_string(round));
            write_environment_file(file, {{"VALUE", value}, {"OTHER", "x"}});
            CHECK(sourced_value(file, "VALUE") == value);
        }
    }

    TEST_CASE("the file is the owner's alone and is never written through an existing one") {
        core::private_directory directory("ipybox-envfile-");
        const auto file = directory.path() / "kernel.env";
        write_environment_file(file, {{"A", "1"}});
        struct stat info {};
        REQUIRE(::stat(file.c_str(), &info) == 0);
        CHECK((info.st_mode & 0777) == 0600);
        CHECK_THROWS_AS(write_environment_file(file, {{"A", "2"}}), std::runtime_error);
    }

    TEST_CASE("names a shell cannot set are refused with the name") {
        core::private_directory directory("ipybox-envfile-");
        for (const char* name : {"A-B", "1A", "A B", "A=B", "", "A;rm"}) {
            try {
                write_environment_file(directory.path() / "refused", {{name, "x"}});
                FAIL("accepted '" << name << "'");
            } catch (const std::invalid_argument& e) {
                CHECK(std::string(e.what()).find(std::string("'") + name + "'") !=
                      std::string::npos);
            }
        }
        CHECK(shell_quoted("it's") == "'it'\\''s'");
    }

    TEST_CASE("inside a wrapper, the kernel's variables go to the file and never to the wrapper") {
        core::private_directory directory("ipybox-envfile-");
        ipybox::kernel::kernel_launch launch;
        launch.python = "/usr/bin/python3";
        launch.runtime_directory = "/opt/runtime";
        launch.working_directory = directory.path();
        launch.environment = {{"NODE_OPTIONS", "--require=/x.js"}, {"PATH", "/usr/bin"}};
        ipybox::kernel::kernel_wrapping wrapping;
        wrapping.command_prefix = {"/usr/bin/srt", "--settings", "s.json", "--"};
        wrapping.wrapper_environment = ipybox::process::environment_map{{"PATH", "/bin"}};
        const auto options =
            kernel_spawn_options(launch, wrapping, directory.path(), directory.path() / "k.json");
        CHECK(options.executable == "/usr/bin/srt");
        CHECK(options.environment == *wrapping.wrapper_environment);
        const auto file = directory.path() / "kernel.env";
        CHECK(sourced_value(file, "NODE_OPTIONS") == "--require=/x.js");
        CHECK(sourced_value(file, "PYTHONPATH") == "/opt/runtime");
        // Control: without a wrapper environment, the kernel's variables are the process's own.
        wrapping.wrapper_environment.reset();
        core::private_directory plain("ipybox-envfile-");
        const auto direct =
            kernel_spawn_options(launch, wrapping, plain.path(), plain.path() / "k.json");
        CHECK(direct.environment.at("NODE_OPTIONS") == "--require=/x.js");
        CHECK_FALSE(std::filesystem::exists(plain.path() / "kernel.env"));
    }
}
