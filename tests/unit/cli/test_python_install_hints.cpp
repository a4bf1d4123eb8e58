#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "python_install_hints.hpp"

using ipybox::cli::detect_host_system;
using ipybox::cli::host_system;
using ipybox::cli::python_install_hints;

namespace {

bool has_line(const std::vector<std::string>& lines, const std::string& wanted) {
    for (const auto& line : lines) {
        if (line == wanted) return true;
    }
    return false;
}

}  // namespace

TEST_SUITE("cli.python_install_hints") {
    TEST_CASE("os-release ID and ID_LIKE name the system family, quoted or not") {
        CHECK(detect_host_system("PRETTY_NAME=\"Debian GNU/Linux 12\"\nID=debian\n", false) ==
              host_system::debian);
        CHECK(detect_host_system("ID=ubuntu\nID_LIKE=debian\n", false) == host_system::debian);
        CHECK(detect_host_system("ID=linuxmint\nID_LIKE=\"ubuntu debian\"\n", false) ==
              host_system::debian);
        CHECK(detect_host_system("ID=fedora\n", false) == host_system::fedora);
        CHECK(detect_host_system("ID=\"rocky\"\nID_LIKE=\"rhel centos fedora\"\n", false) ==
              host_system::fedora);
        CHECK(detect_host_system("ID=arch\n", false) == host_system::other);
        CHECK(detect_host_system("", false) == host_system::other);
    }

    TEST_CASE("a word inside another ID does not count (debian-like is not debian)") {
        CHECK(detect_host_system("ID=notdebian\nID_LIKE=fedoraish\n", false) == host_system::other);
    }

    TEST_CASE("macOS wins over whatever os-release says") {
        CHECK(detect_host_system("ID=debian\n", true) == host_system::macos);
    }

    TEST_CASE("every system's command is listed, only this system's marked") {
        const auto hints = python_install_hints(host_system::fedora, "", "~/venv");
        CHECK(has_line(hints,
                       "Debian/Ubuntu: sudo apt-get install python3-ipykernel "
                       "python3-pydantic python3-matplotlib"));
        CHECK(has_line(hints,
                       "Fedora: sudo dnf install python3-ipykernel python3-pydantic "
                       "python3-matplotlib   <- this system"));
        CHECK(has_line(hints,
                       "macOS (Homebrew): brew install python, then the virtual "
                       "environment below"));
    }

    TEST_CASE("the virtual environment is made from the plain Python found, else python3") {
        const auto from_found = python_install_hints(host_system::other, "/opt/py/bin/python3",
                                                     "~/.local/share/ipybox/venv");
        CHECK(from_found.back().find("/opt/py/bin/python3 -m venv ~/.local/share/ipybox/venv && "
                                     "~/.local/share/ipybox/venv/bin/python -m pip install "
                                     "ipykernel pydantic matplotlib, then pass --python "
                                     "~/.local/share/ipybox/venv/bin/python") != std::string::npos);
        CHECK(from_found.back().find("<- this system") != std::string::npos);
        const auto default_python = python_install_hints(host_system::macos, "", "~/v");
        CHECK(default_python.back().find("with only a plain Python 3: python3 -m venv ~/v") == 0);
    }
}
