#include <doctest/doctest.h>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "ipybox/core/private_directory.hpp"
#include "ipybox/kernel/interpreter.hpp"

using namespace ipybox;

namespace {

void write_script(const std::filesystem::path& path, const std::string& body) {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    ::chmod(path.c_str(), 0755);
}

// <root>/bin/ipybox beside a bin/python3 that answers the probe without ipykernel, and a
// pyvenv.cfg when `is_venv`: the layout pip and uv give an installed wheel.
std::filesystem::path make_environment(const std::filesystem::path& root, bool is_venv) {
    write_script(root / "bin" / "ipybox", "exit 0");
    write_script(root / "bin" / "python3",
                 R"(echo 'IPYBOX-PROBE {"python": "3.11.2", "ipykernel": "", "pydantic": "",)"
                 R"( "matplotlib": ""}')");
    if (is_venv) std::ofstream(root / "pyvenv.cfg") << "home = /usr/bin\n";
    return root / "bin" / "ipybox";
}

}  // namespace

TEST_SUITE("kernel.interpreter") {
    TEST_CASE("a binary in a virtual environment's bin/ names that environment's python3") {
        core::private_directory scratch;
        const auto binary = make_environment(scratch.path() / "venv", true);
        const auto found = kernel::environment_interpreter(binary);
        REQUIRE(found.has_value());
        CHECK(*found == scratch.path() / "venv" / "bin" / "python3");
    }

    TEST_CASE("the environment's python3 is returned as found, not resolved to its base") {
        core::private_directory scratch;
        const auto binary = make_environment(scratch.path() / "venv", true);
        const auto python = scratch.path() / "venv" / "bin" / "python3";
        std::filesystem::rename(python, scratch.path() / "base-python3");
        std::filesystem::create_symlink(scratch.path() / "base-python3", python);
        CHECK(kernel::environment_interpreter(binary) == python);
    }

    TEST_CASE("control: a binary outside a virtual environment (no pyvenv.cfg) has none") {
        core::private_directory scratch;
        const auto binary = make_environment(scratch.path() / "prefix", false);
        CHECK_FALSE(kernel::environment_interpreter(binary).has_value());
    }

    TEST_CASE(
        "the environment's interpreter is the only default candidate, PATH and /usr/bin "
        "are not searched") {
        core::private_directory scratch;
        make_environment(scratch.path() / "other", false);
        kernel::interpreter_search search;
        search.environment_python = scratch.path() / "venv" / "bin" / "python3";
        search.path_variable = (scratch.path() / "other" / "bin").string() + ":/usr/bin";
        const auto candidates = kernel::interpreter_candidates(search);
        REQUIRE(candidates.size() == 1);
        CHECK(candidates.front() == *search.environment_python);

        search.environment_python.reset();  // control: without it, PATH then /usr/bin
        const auto searched = kernel::interpreter_candidates(search);
        REQUIRE(searched.size() >= 2);
        CHECK(searched.front() == scratch.path() / "other" / "bin" / "python3");
    }

    TEST_CASE("--python and IPYBOX_PYTHON still come before the environment's interpreter") {
        kernel::interpreter_search search;
        search.environment_python = "/venv/bin/python3";
        search.env_override = "/opt/python/bin/python3";
        CHECK(kernel::interpreter_candidates(search).front() == "/opt/python/bin/python3");
        search.explicit_path = "/srv/python3";
        CHECK(kernel::interpreter_candidates(search).front() == "/srv/python3");
    }

    TEST_CASE(
        "a venv interpreter without ipykernel is reported with how to fix it, and no other "
        "Python is tried in its place") {
        core::private_directory scratch;
        const auto binary = make_environment(scratch.path() / "venv", true);
        kernel::interpreter_search search;
        search.environment_python = kernel::environment_interpreter(binary);
        search.path_variable = "/usr/bin:/bin";
        search.environment = {{"PATH", "/usr/bin:/bin"}};
        try {
            kernel::find_interpreter(search);
            FAIL("find_interpreter accepted an interpreter without ipykernel");
        } catch (const kernel::interpreter_not_found& error) {
            REQUIRE(error.tried().size() == 1);
            CHECK(error.tried().front().path == *search.environment_python);
            const std::string message = error.what();
            CHECK(message.find("-m pip install ipykernel") != std::string::npos);
            CHECK(message.find("/usr/bin/python3") == std::string::npos);
        }
    }

    TEST_CASE("the probe reports the versions importlib.metadata gives, without reading it") {
        const auto probe =
            kernel::probe_interpreter("/usr/bin/python3", {{"PATH", "/usr/bin:/bin"}});
        REQUIRE(probe.usable);
        // The control: importlib.metadata's answers, from the same interpreter.
        const char* script =
            "/usr/bin/python3 -I -c \"import importlib.metadata as m\n"
            "def v(n):\n"
            "    try: return m.version(n)\n"
            "    except m.PackageNotFoundError: return ''\n"
            "print(v('ipykernel'), v('pydantic'), v('matplotlib'), sep='|')\"";
        std::string expected;
        if (FILE* pipe = ::popen(script, "r")) {
            char buffer[256];
            while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) expected += buffer;
            ::pclose(pipe);
        }
        CHECK(probe.ipykernel_version + "|" + probe.pydantic_version + "|" +
                  probe.matplotlib_version + "\n" ==
              expected);
        CHECK_FALSE(probe.ipykernel_version.empty());
    }
}
