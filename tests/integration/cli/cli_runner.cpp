#include "cli_runner.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

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

background_ipybox::background_ipybox(const std::string& arguments)
    : directory_(fresh_directory("cli-background").string()) {
    const std::string command = "exec " + shell_quote(ipybox_executable().string()) + " " +
                                arguments + " < /dev/null > stdout 2> stderr";
    pid_ = ::fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
        // As from a shell: SIGINT neither blocked nor ignored, whatever the test runner does.
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);
        ::signal(SIGINT, SIG_DFL);
        if (::chdir(directory_.c_str()) != 0) ::_exit(127);
        ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
}

background_ipybox::~background_ipybox() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
}

bool background_ipybox::wait_for_output(const std::string& text) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    while (std::chrono::steady_clock::now() < deadline) {
        if (slurp(std::filesystem::path(directory_) / "stdout").find(text) != std::string::npos) {
            return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
}

void background_ipybox::send_signal(int number) {
    REQUIRE(pid_ > 0);
    ::kill(pid_, number);
}

command_result background_ipybox::finish() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
    int status = 0;
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() >= deadline) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, &status, 0);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    pid_ = -1;
    command_result result;
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    result.out = slurp(std::filesystem::path(directory_) / "stdout");
    result.err = slurp(std::filesystem::path(directory_) / "stderr");
    return result;
}

}  // namespace ipybox::testing
