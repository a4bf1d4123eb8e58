// end_with_parent (parent_watch.hpp): a process that arranged it gets SIGTERM when its parent
// ends, and not before; a parent that is not the one named arranges nothing.
//
// The test forks a parent, which forks the watching child. The child's SIGTERM handler writes
// 'T' into a pipe whose other end only the test holds; the pipe's end of file says the child is
// gone.
#include <doctest/doctest.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include "parent_watch.hpp"

namespace {

int report_fd = -1;

void on_terminate(int) {
    const char mark = 'T';
    [[maybe_unused]] const auto written = ::write(report_fd, &mark, 1);
    ::_exit(0);
}

struct family {
    pid_t parent = -1;
    int report = -1;  // the read end: 'W' once the child watches, then 'T' at SIGTERM
};

// The parent waits to be killed; its child calls end_with_parent(parent), says 'W' (or 'N' when
// it returned false), then waits for a signal for up to 20 seconds (1.5 when not watching).
family start_family(bool name_the_parent) {
    int ends[2];
    REQUIRE(::pipe(ends) == 0);
    family f;
    f.parent = ::fork();
    REQUIRE(f.parent >= 0);
    if (f.parent == 0) {
        ::close(ends[0]);
        if (::fork() == 0) {
            report_fd = ends[1];
            std::signal(SIGTERM, on_terminate);
            const int named = name_the_parent ? static_cast<int>(::getppid()) : 1;
            const bool watching = ipybox::cli::end_with_parent(named);
            const char mark = watching ? 'W' : 'N';
            [[maybe_unused]] const auto written = ::write(report_fd, &mark, 1);
            for (int i = 0; i < (watching ? 200 : 15); ++i) ::usleep(100000);
            ::_exit(1);
        }
        ::close(ends[1]);
        for (;;) ::pause();
    }
    ::close(ends[1]);
    f.report = ends[0];
    return f;
}

// The next byte from the child within `milliseconds`: '\0' at end of file, 0 on timeout.
char next_report(int fd, int milliseconds) {
    pollfd ready{fd, POLLIN, 0};
    if (::poll(&ready, 1, milliseconds) != 1) return 0;
    char mark = 0;
    return ::read(fd, &mark, 1) == 1 ? mark : '\0';
}

void end_parent(pid_t parent) {
    ::kill(parent, SIGKILL);
    int status = 0;
    ::waitpid(parent, &status, 0);
}

}  // namespace

TEST_SUITE("cli.parent_watch") {
    TEST_CASE("the child gets SIGTERM when its parent ends, and not while it lives") {
        const auto f = start_family(true);
        CHECK(next_report(f.report, 10000) == 'W');
        CHECK(next_report(f.report, 600) == 0);  // the parent lives: no signal
        end_parent(f.parent);
        CHECK(next_report(f.report, 10000) == 'T');
        CHECK(next_report(f.report, 10000) == '\0');
        ::close(f.report);
    }

    TEST_CASE("a pid that is not the parent arranges nothing") {
        const auto f = start_family(false);
        CHECK(next_report(f.report, 10000) == 'N');
        end_parent(f.parent);
        // No signal: the child runs out its wait and exits without a word.
        CHECK(next_report(f.report, 10000) == '\0');
        ::close(f.report);
    }
}
