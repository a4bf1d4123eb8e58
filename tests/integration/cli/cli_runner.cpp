#include "cli_runner.hpp"

#include <sys/wait.h>

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

command_result run_ipybox(const std::string& arguments, const std::string& input,
                          const std::string& environment) {
    const auto dir = fresh_directory("cli-run");
    std::ofstream(dir / "stdin") << input;
    const std::string command = "cd " + shell_quote(dir.string()) + " && " +
                                (environment.empty() ? "" : "env " + environment + " ") +
                                shell_quote(ipybox_executable().string()) + " " + arguments +
                                " < stdin > stdout 2> stderr";
    const int status = std::system(command.c_str());
    command_result result;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.out = slurp(dir / "stdout");
    result.err = slurp(dir / "stderr");
    return result;
}

}  // namespace ipybox::testing
