#include "cli_runner.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "test_paths.hpp"

namespace ipybox::testing {
namespace {

std::string slurp(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream content;
    content << in.rdbuf();
    return content.str();
}

}  // namespace

std::string shell_quote(const std::string& text) {
    std::string out = "'";
    for (const char c : text) {
        if (c == '\'') {
            out += "'\\''";
        } else {
            out += c;
        }
    }
    return out + "'";
}

namespace {

command_result run_with_stdin(const std::string& arguments, const std::string& stdin_path,
                              const std::string& environment) {
    const auto dir = fresh_directory("cli-run");
    const std::string command = "cd " + shell_quote(dir.string()) + " && " +
                                (environment.empty() ? "" : "env " + environment + " ") +
                                shell_quote(ipybox_executable().string()) + " " + arguments +
                                " < " + shell_quote(stdin_path) + " > stdout 2> stderr";
    const int status = std::system(command.c_str());
    command_result result;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.out = slurp(dir / "stdout");
    result.err = slurp(dir / "stderr");
    return result;
}

}  // namespace

command_result run_ipybox(const std::string& arguments, const std::string& input,
                          const std::string& environment) {
    const auto input_file = fresh_directory("cli-stdin") / "stdin";
    std::ofstream(input_file) << input;
    return run_with_stdin(arguments, input_file.string(), environment);
}

command_result run_ipybox_on_terminal(const std::string& arguments, const std::string& input,
                                      const std::string& environment) {
    const int terminal = ::posix_openpt(O_RDWR | O_NOCTTY);
    REQUIRE(terminal >= 0);
    REQUIRE(::grantpt(terminal) == 0);
    REQUIRE(::unlockpt(terminal) == 0);
    const std::string device = ::ptsname(terminal);
    // The typed-ahead lines wait in the terminal until read; ^D then reads as end of input.
    const std::string typed = input + "\x04";
    REQUIRE(::write(terminal, typed.data(), typed.size()) == static_cast<ssize_t>(typed.size()));
    auto result = run_with_stdin(arguments, device, environment);
    ::close(terminal);
    return result;
}

}  // namespace ipybox::testing
