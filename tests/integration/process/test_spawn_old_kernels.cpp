// The spawner's paths for kernels without close_range (before 5.11) or pidfds (before 5.3),
// taken on any kernel through spawn_request::interfaces, and the order of the child's steps.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include "ipybox/process/child_process.hpp"
#include "process_helpers.hpp"
#include "process_inspection.hpp"

using namespace ipybox;
using ipybox::testing::run_to_end;

namespace {

constexpr int open_files_in_child = 64;
constexpr int above_that = 200;  // a number of ours the child's limit does not reach

const std::vector<std::string> list_descriptors = {"/bin/sh", "-c", "cd /proc/self/fd && echo *"};

// A descriptor of ours at `number`, without close-on-exec (as Asio and ZeroMQ make some).
struct plain_descriptor_at {
    explicit plain_descriptor_at(int number) {
        const int opened = ::open("/dev/null", O_RDONLY);
        REQUIRE(::fcntl(opened, F_DUPFD, number) == number);
        ::close(opened);
        fd = number;
    }
    ~plain_descriptor_at() { ::close(fd); }
    int fd = -1;
};

// The spawner's child before this fix, in the test: RLIMIT_NOFILE lowered first, then every
// number below the (new) limit marked close-on-exec, then exec. Returns what the program listed.
std::string listing_after_limit_then_sweep() {
    auto out = process::make_pipe();
    const char* argv[] = {list_descriptors[0].c_str(), list_descriptors[1].c_str(),
                          list_descriptors[2].c_str(), nullptr};
    const char* envp[] = {"PATH=/usr/bin:/bin", nullptr};
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        ::dup2(out.write.get(), 1);
        const rlimit lowered{open_files_in_child, open_files_in_child};
        ::setrlimit(RLIMIT_NOFILE, &lowered);
        for (int fd = 3; fd < open_files_in_child; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
        ::execve(argv[0], const_cast<char**>(argv), const_cast<char**>(envp));
        ::_exit(127);
    }
    out.write.reset();
    std::string listing;
    char buffer[256];
    for (ssize_t got; (got = ::read(out.read.get(), buffer, sizeof buffer)) > 0;) {
        listing.append(buffer, static_cast<std::size_t>(got));
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return listing;
}

bool lists(const std::string& listing, int fd) {
    const auto number = " " + std::to_string(fd);
    return (" " + listing).find(number + " ") != std::string::npos ||
           (" " + listing).find(number + "\n") != std::string::npos;
}

}  // namespace

TEST_CASE(
    "without close_range, a descriptor of ours above the child's open-file limit is not "
    "inherited") {
    const plain_descriptor_at ours(above_that);
    // Control: lowering the limit before the sweep lets the descriptor through to the program.
    CHECK(lists(listing_after_limit_then_sweep(), above_that));

    for (const bool close_range : {false, true}) {
        CAPTURE(close_range);
        process::spawn_options options;
        options.limits.open_files = open_files_in_child;
        options.interfaces.bulk_close = close_range;
        const auto seen = run_to_end(list_descriptors, std::move(options)).output;
        // sh's own descriptor for the directory read may appear as the lowest free number: 3.
        CHECK((seen == "0 1 2\n" || seen == "0 1 2 3\n"));
    }
}

TEST_CASE("descriptors are handed over before the limits: one above the open-file limit arrives") {
    auto out = process::make_pipe();
    auto null_in = process::open_dev_null(false);
    auto extra = process::open_dev_null(false);
    process::spawn_request request;
    request.executable = list_descriptors[0];
    request.arguments.assign(list_descriptors.begin() + 1, list_descriptors.end());
    request.environment = {{"PATH", "/usr/bin:/bin"}};
    request.working_directory = "/";
    request.descriptors = {
        {0, null_in.get()}, {1, out.write.get()}, {2, out.write.get()}, {above_that, extra.get()}};
    request.limits.open_files = open_files_in_child;
    request.interfaces.bulk_close = false;
    const auto child = process::spawn(request);
    out.write.reset();
    char listing[256] = {};
    const auto listed = ::read(out.read.get(), listing, sizeof listing - 1);
    const std::string fds(listing, listed > 0 ? static_cast<std::size_t>(listed) : 0);
    // The shell's glob sorts as text; its own descriptor may be 3.
    CHECK((fds == "0 1 2 200\n" || fds == "0 1 2 200 3\n"));
    int status = 0;
    ::waitpid(child.pid, &status, 0);
}

TEST_CASE("without pidfds, a waiter's pipe says when the child exits and the status is kept") {
    auto input = process::make_pipe();
    process::spawn_options options;
    options.executable = "/bin/sh";
    options.arguments = {"-c", "read line; exit 7"};
    options.working_directory = "/";
    options.stdin_descriptor = input.read.get();
    options.interfaces.exit_descriptor = false;
    auto child = process::child_process::spawn(std::move(options));
    input.read.reset();
    REQUIRE(child->exit_fd() >= 0);
    pollfd exited{child->exit_fd(), POLLIN, 0};
    CHECK(::poll(&exited, 1, 200) == 0);          // not while it runs
    CHECK_FALSE(child->poll_exit().has_value());  // it waits for a line we have not sent
    input.write.reset();                          // end of file: it exits
    CHECK(::poll(&exited, 1, 20000) == 1);        // the waiter saw the exit, without reaping
    const auto status = child->poll_exit();
    REQUIRE(status.has_value());
    CHECK(status->code == 7);
}

TEST_CASE("without pidfds, the shutdown ladder and signals still end the child") {
    const auto before = testing::tree_of(::getpid());
    for (const int how : {SIGTERM, SIGKILL}) {
        CAPTURE(how);
        process::spawn_options options;
        options.executable = "/bin/sleep";
        options.arguments = {"600"};
        options.working_directory = "/";
        options.interfaces.exit_descriptor = false;
        auto child = process::child_process::spawn(std::move(options));
        REQUIRE(child->exit_fd() >= 0);  // the waiter's pipe
        const int pid = child->pid();
        process::exit_status status;
        if (how == SIGTERM) {
            status = child->terminate(std::chrono::seconds(5));
        } else {
            child->signal_group(SIGKILL);
            const auto waited = child->wait_for(std::chrono::seconds(20));
            REQUIRE(waited.has_value());
            status = *waited;
        }
        CHECK(status.signal == how);
        child.reset();
        CHECK_FALSE(testing::process_alive(pid));
    }
    CHECK(testing::tree_of(::getpid()) == before);
}
