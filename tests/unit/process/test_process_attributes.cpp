// What another process can change about one of ours without signalling it (prlimit, nice, the
// scheduler), read back and compared: the check a spare kernel and a forked one pass before they
// are handed over.
#include <doctest/doctest.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <future>
#include <string>
#include <thread>

#include "ipybox/process/process_attributes.hpp"

using namespace ipybox::process;

namespace {

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// A child that waits until it is killed, ended and reaped when the test ends.
struct waiting_child {
    pid_t pid = ::fork();
    waiting_child() {
        if (pid == 0) {
            ::pause();
            ::_exit(0);
        }
        REQUIRE(pid > 0);
    }
    ~waiting_child() {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
    }
};

}  // namespace

TEST_SUITE("process.attributes") {
    TEST_CASE("a child has its parent's attributes until another process changes its limits") {
        const auto ours = attributes_of(::getpid());
        REQUIRE(ours.has_value());
        waiting_child child;
        CHECK(attribute_trouble(child.pid, *ours) == "");  // the control

        const rlimit two_seconds{2, 2};
        REQUIRE(::prlimit(child.pid, RLIMIT_CPU, &two_seconds, nullptr) == 0);
        const auto trouble = attribute_trouble(child.pid, *ours);
        CHECK(contains(trouble, "its limit of CPU seconds is 2 (hard 2) instead of"));
    }

    TEST_CASE("a changed nice value or scheduling policy is found") {
        const auto ours = attributes_of(::getpid());
        REQUIRE(ours.has_value());
        waiting_child child;
        REQUIRE(::setpriority(PRIO_PROCESS, static_cast<id_t>(child.pid), ours->threads.nice + 1) ==
                0);
        CHECK(contains(attribute_trouble(child.pid, *ours),
                       "has nice " + std::to_string(ours->threads.nice + 1) + " instead of " +
                           std::to_string(ours->threads.nice)));

        waiting_child idle;
        const sched_param none{};
        REQUIRE(::sched_setscheduler(idle.pid, SCHED_IDLE, &none) == 0);
        CHECK(contains(attribute_trouble(idle.pid, *ours), "scheduling policy"));
    }

    TEST_CASE("every thread is compared, not only the main one") {
        const auto ours = attributes_of(::getpid());
        REQUIRE(ours.has_value());
        std::promise<pid_t> started;
        std::promise<void> finish;
        std::thread thread([&] {
            started.set_value(static_cast<pid_t>(::gettid()));
            finish.get_future().wait();
        });
        const auto tid = started.get_future().get();
        CHECK(attribute_trouble(::getpid(), *ours) == "");  // the control
        REQUIRE(::setpriority(PRIO_PROCESS, static_cast<id_t>(tid), 19) == 0);
        const auto trouble = attribute_trouble(::getpid(), *ours);
        finish.set_value();
        thread.join();
        CHECK(contains(trouble, "thread " + std::to_string(tid) + " has nice 19"));
    }

    TEST_CASE("configured limits replace the inherited ones, soft and hard alike") {
        process_attributes base;
        base.limits[RLIMIT_CPU] = {RLIM_INFINITY, RLIM_INFINITY};
        base.limits[RLIMIT_NOFILE] = {1024, 4096};
        process_rlimits limits;
        limits.cpu_seconds = 30;
        const auto limited = with_limits(base, limits);
        CHECK(limited.limits[RLIMIT_CPU] == limit_pair{30, 30});
        CHECK(limited.limits[RLIMIT_NOFILE] == limit_pair{1024, 4096});
    }

    TEST_CASE("a process that is gone is said to be gone") {
        pid_t pid = ::fork();
        if (pid == 0) ::_exit(0);
        REQUIRE(pid > 0);
        ::waitpid(pid, nullptr, 0);
        CHECK_FALSE(attributes_of(pid).has_value());
        CHECK(attribute_trouble(pid, process_attributes{}) == "it has exited");
    }
}
