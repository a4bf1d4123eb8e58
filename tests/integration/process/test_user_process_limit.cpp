// The process limit without a cgroup: RLIMIT_NPROC counts every process and thread of the user,
// so a tree is given the user's count at its start plus its limit. Run as root, the tests take
// an unused uid so that nothing else of that user changes the counts; as another user they say
// so and check nothing.
#include <doctest/doctest.h>
#include <grp.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <mutex>
#include <string>

#include "ipybox/process/containment.hpp"
#include "process_helpers.hpp"
#include "process_table.hpp"
#include "test_paths.hpp"

using namespace ipybox;
using ipybox::process::detail::user_task_count;
using ipybox::testing::in_tree;
using ipybox::testing::run_to_end;

namespace {

// A uid no process runs as, for a user of the test's own; from `base` on, a range of each test's
// own, so that two tests run at once never take the same.
unsigned unused_uid(unsigned base) {
    for (unsigned uid = base + static_cast<unsigned>(::getpid() % 500);; ++uid) {
        if (user_task_count(uid) == 0) return uid;
    }
}

void become(unsigned uid) {
    if (::setgroups(0, nullptr) != 0 || ::setgid(uid) != 0 || ::setuid(uid) != 0) ::_exit(120);
}

// /usr/bin/python3 as `uid` holding `threads` threads besides its main one, until it is killed.
class thread_holder {
  public:
    thread_holder(unsigned uid, int threads) {
        int ready[2];
        REQUIRE(::pipe(ready) == 0);
        pid_ = ::fork();
        REQUIRE(pid_ >= 0);
        if (pid_ == 0) {
            ::dup2(ready[1], 1);
            become(uid);
            const std::string code =
                "import threading, time\n"
                "for _ in range(" +
                std::to_string(threads) +
                "):\n"
                "    threading.Thread(target=time.sleep, args=(300,), daemon=True).start()\n"
                "print('holding', flush=True)\n"
                "time.sleep(300)\n";
            ::execl("/usr/bin/python3", "python3", "-c", code.c_str(), nullptr);
            ::_exit(127);
        }
        ::close(ready[1]);
        char line[16] = {};
        const auto got = ::read(ready[0], line, sizeof line - 1);
        ::close(ready[0]);
        REQUIRE_MESSAGE(got > 0, "the holder did not start its threads");
    }
    ~thread_holder() {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
    }
    thread_holder(const thread_holder&) = delete;
    thread_holder& operator=(const thread_holder&) = delete;

  private:
    pid_t pid_ = -1;
};

// Runs `work` in a child process as `uid` and returns its exit code (-1: it did not exit).
template <class Work>
int as_user(unsigned uid, Work work) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        become(uid);
        ::_exit(work());
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Starts 200 sleeping threads and prints how many it could: "started N".
constexpr const char* thread_flood =
    "import threading, time\n"
    "started = 0\n"
    "try:\n"
    "    for _ in range(200):\n"
    "        threading.Thread(target=time.sleep, args=(10,), daemon=True).start()\n"
    "        started += 1\n"
    "except RuntimeError:\n"
    "    pass\n"
    "print('started', started, flush=True)\n";

int started_threads(const std::string& output) {
    const auto at = output.find("started ");
    return at == std::string::npos ? -1 : std::stoi(output.substr(at + 8));
}

}  // namespace

TEST_CASE("the tasks RLIMIT_NPROC counts for a user are every thread of its processes") {
    if (::geteuid() != 0) {
        MESSAGE("not root: no uid of the test's own; not checked");
        return;
    }
    const unsigned uid = unused_uid(61000);
    CHECK(user_task_count(uid) == 0);
    const thread_holder holder(uid, 40);
    CHECK(user_task_count(uid) == 41);  // its main thread and 40 more
}

TEST_CASE(
    "without a cgroup, a user with more processes than the limit can still start threads in a "
    "tree, the tree's limit still holds and its breach is reported (controls: the limit as an "
    "absolute count refuses the first thread, no limit lets the flood run whole)") {
    if (::geteuid() != 0) {
        MESSAGE("not root: no uid of the test's own; not checked");
        return;
    }
    const unsigned uid = unused_uid(62000);
    const thread_holder holder(uid, 600);  // a desktop's browser and editor, say
    const auto root = ipybox::testing::fresh_directory("nproc");
    std::filesystem::create_directories(root / "fs");
    std::ofstream(root / "self") << "";
    constexpr int may_start = 1, stopped_near_limit = 2, control_refused = 4;
    constexpr int no_breach_before = 8, breach_reported = 16, unlimited_floods = 32;
    const int outcome = as_user(uid, [&] {
        process::containment_host host({root / "fs", root / "self"});
        if (host.mechanism().kind != process::containment_kind::rlimits) return 100;
        process::resource_limits limits;
        limits.processes = 64;
        auto tree = host.contain(limits);
        int result = 0;
        const auto python = [&](const std::string& code) {
            return in_tree(*tree, "/usr/bin/python3", {"-c", code});
        };
        const auto some = run_to_end({}, python("import subprocess, threading\n"
                                                "threads = [threading.Thread(target=print) for "
                                                "_ in range(8)]\n"
                                                "for t in threads: t.start()\n"
                                                "for t in threads: t.join()\n"
                                                "subprocess.run(['/bin/true'], check=True)\n"
                                                "print('threads and a process ran')\n"));
        if (some.output.find("threads and a process ran") != std::string::npos) result |= may_start;
        if (!tree->take_breach()) result |= no_breach_before;
        // The flood keeps its threads until it is killed: the breach is read while they live,
        // as a kernel's are after a refused cell.
        auto output = std::make_shared<std::string>();
        auto mutex = std::make_shared<std::mutex>();
        auto flood_options = python(std::string(thread_flood) + "time.sleep(60)\n");
        flood_options.on_output_line = [output, mutex](std::string_view line) {
            std::lock_guard lock(*mutex);
            output->append(line);
        };
        const auto flooded = [&] {
            std::lock_guard lock(*mutex);
            return started_threads(*output);
        };
        auto flood = process::child_process::spawn(std::move(flood_options));
        ipybox::testing::eventually([&] { return flooded() >= 0; });
        if (flooded() >= 8 && flooded() < 64) result |= stopped_near_limit;
        const auto breach = tree->take_breach();
        if (breach && breach->limit == "processes" &&
            breach->detail == "its limit of 64 processes and threads") {
            result |= breach_reported;
        }
        flood->terminate(std::chrono::milliseconds(100));
        // The controls. The rule before: the user's 600 threads leave an absolute 64 no room.
        auto absolute = python(thread_flood);
        absolute.limits.processes = 64;
        if (started_threads(run_to_end({}, absolute).output) == 0) result |= control_refused;
        // Without a process limit the same flood starts every thread: the limit is what stops it.
        auto unlimited = python(thread_flood);
        unlimited.limits.processes.reset();
        if (started_threads(run_to_end({}, unlimited).output) == 200) result |= unlimited_floods;
        tree->kill_all();
        return result;
    });
    REQUIRE(outcome != 100);
    CHECK_MESSAGE((outcome & may_start) != 0, "a tree could not start 8 threads and a process");
    CHECK_MESSAGE((outcome & stopped_near_limit) != 0, "a flood was not stopped by the limit");
    CHECK_MESSAGE((outcome & control_refused) != 0, "the absolute limit did not refuse (control)");
    CHECK_MESSAGE((outcome & no_breach_before) != 0, "a breach was reported before the flood");
    CHECK_MESSAGE((outcome & breach_reported) != 0, "the flood's breach was not reported");
    CHECK_MESSAGE((outcome & unlimited_floods) != 0, "without a limit the flood did not run whole");
}
