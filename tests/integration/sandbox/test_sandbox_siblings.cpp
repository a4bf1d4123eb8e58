// Kernels forked from one template share its sandbox, and so a PID namespace: each can signal
// the template and the spare (issue 35, item 7), and lower their limits and priorities with
// prlimit and setpriority (finding D of the second outside attack). A kernel so signalled or
// changed is never handed over, nor is one forked from a template so changed, and a kernel given
// up by a reset can no longer reach anything once the reset hands its successor over.
#include <doctest/doctest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "process_inspection.hpp"
#include "tool_fixture.hpp"

using namespace ipybox;
using namespace ipybox::testing;

namespace {

code_executor_options sandboxed_with_spare(const std::string& name) {
    auto options = tool_executor_options("siblings-" + name);
    kernel_sandbox sandbox;
    sandbox.srt = node_module(".bin/srt");
    options.sandbox = std::move(sandbox);
    options.keep_spare_kernel = true;
    use_own_home(options, "siblings-" + name);
    return options;
}

// Defines siblings(): the PIDs (as the kernel sees them) of the other kernels and of the
// template in its sandbox, waiting until the spare is there.
constexpr const char* find_siblings_code = R"(import os, time
def _command(pid):
    try:
        return open(f'/proc/{pid}/cmdline', 'rb').read()
    except OSError:
        return b''
def siblings():
    return [int(p) for p in os.listdir('/proc') if p.isdigit() and int(p) != os.getpid()
            and (b'kernel_main' in _command(p) or b'kernel_template' in _command(p))]
deadline = time.monotonic() + 60
while sum(b'kernel_main' in _command(p) for p in siblings()) < 1 and time.monotonic() < deadline:
    time.sleep(0.05)
print(len(siblings()))
)";

// One field of /proc/<pid>/status ("State", "PPid"), or "" when the process is gone.
std::string status_field(int pid, const std::string& name) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(in, line);) {
        if (line.rfind(name + ":", 0) == 0) {
            const auto value = line.find_first_not_of(" \t", name.size() + 1);
            return value == std::string::npos ? std::string() : line.substr(value);
        }
    }
    return {};
}

char state_of(int pid) {
    const auto state = status_field(pid, "State");
    return state.empty() ? '?' : state.front();
}

// The state of `pid` once a SIGSTOP sent to it has taken effect: kill() returns once the signal is
// queued, and a process that is running or waiting for a core stops only when it is next
// scheduled. Waits at most ten seconds for the 'T', then returns the state as it is.
char state_once_stopped(int pid) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    auto state = state_of(pid);
    while (state != 'T' && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        state = state_of(pid);
    }
    return state;
}

// The host's PIDs of the other live children of the template `current` was forked from: the
// spare.
std::vector<int> spare_pids(int current) {
    const auto parent = status_field(current, "PPid");
    std::vector<int> found;
    for (const int pid : tree_of(::getpid())) {
        if (pid != current && status_field(pid, "PPid") == parent && state_of(pid) != 'Z' &&
            state_of(pid) != '?') {
            found.push_back(pid);
        }
    }
    return found;
}

// Resets into a forked kernel, beside its template and the spare, defines siblings() there, and
// returns the PIDs of the template and of the spare as the host sees them, the template first.
std::vector<int> beside_template_and_spare(code_executor& executor) {
    executor.execute("pass");
    executor.reset();
    REQUIRE(executor.execute(find_siblings_code).text != "0");
    auto spares = spare_pids(executor.kernel_pid());
    REQUIRE_FALSE(spares.empty());
    spares.insert(spares.begin(), std::stoi(status_field(executor.kernel_pid(), "PPid")));
    return spares;
}

// Whether `pid` still runs. A reset that came while the first spare was starting makes the
// session keep two for a second (session_kernels.cpp): the one it then gives up may end between
// the kernel's listing and the host's check. The template never does.
bool still_there(int pid) {
    const auto state = state_of(pid);
    return state != '?' && state != 'Z' && state != 'X';
}

// Runs `action(pid)` in the kernel for each of its siblings that is still there.
std::string for_each_sibling(const std::string& imports, const std::string& action) {
    return imports +
           "\nfor pid in siblings():\n"
           "    try:\n"
           "        " +
           action +
           "\n"
           "    except (ProcessLookupError, FileNotFoundError):\n"
           "        pass  # a spare given up meanwhile (still_there)";
}

}  // namespace

TEST_SUITE("sandbox.siblings") {
    TEST_CASE(
        "a spare and a template stopped by a sibling are not handed over: the reset gives a "
        "kernel that runs (control: the sibling's SIGSTOP did stop them)") {
        code_executor executor(sandboxed_with_spare("stop"));
        const auto before = beside_template_and_spare(executor);
        executor.execute(for_each_sibling("import signal", "os.kill(pid, signal.SIGSTOP)"));
        CHECK(state_once_stopped(before.front()) == 'T');  // the control: the template
        for (const int pid : before) {
            if (still_there(pid)) CHECK(state_once_stopped(pid) == 'T');
        }

        executor.reset();
        const auto result = executor.execute("print(6 * 7)", std::chrono::seconds(60));
        CHECK(result.text == "42");
        for (const int pid : before) CHECK(executor.kernel_pid() != pid);
    }

    TEST_CASE(
        "a spare and a template whose limits and priorities a sibling lowered are not used: the "
        "reset gives a kernel with its own (control: the sibling's prlimit and setpriority took)") {
        code_executor executor(sandboxed_with_spare("limits"));
        const auto before = beside_template_and_spare(executor);
        // A CPU limit of ten minutes leaves the template running (one of a few seconds would end
        // it): each kernel it forks would inherit the limit, and every thread's nice value of 19.
        executor.execute(
            for_each_sibling("import resource",
                             "resource.prlimit(pid, resource.RLIMIT_CPU, (600, 600))\n"
                             "        for tid in os.listdir(f'/proc/{pid}/task'):\n"
                             "            os.setpriority(os.PRIO_PROCESS, int(tid), 19)"));
        REQUIRE(still_there(before.front()));  // the template, whose change the control needs
        for (const int pid : before) {         // the control
            rlimit limit{};
            if (::prlimit(pid, RLIMIT_CPU, nullptr, &limit) != 0 && !still_there(pid)) continue;
            CHECK(limit.rlim_max == 600);
            CHECK(::getpriority(PRIO_PROCESS, static_cast<id_t>(pid)) == 19);
        }

        executor.reset();
        const auto result = executor.execute(
            "import os, resource\n"
            "print(resource.getrlimit(resource.RLIMIT_CPU)[1] == resource.RLIM_INFINITY,\n"
            "      sorted({os.getpriority(os.PRIO_PROCESS, int(t))\n"
            "              for t in os.listdir('/proc/self/task')}))",
            std::chrono::seconds(60));
        CHECK(result.text == "True [" + std::to_string(::getpriority(PRIO_PROCESS, 0)) + "]");
        for (const int pid : before) CHECK(executor.kernel_pid() != pid);
    }

    TEST_CASE(
        "a kernel given up by a reset cannot kill its successor: it is ended before the "
        "successor is handed over (control: while it runs, it kills the spare)") {
        code_executor executor(sandboxed_with_spare("kill"));
        beside_template_and_spare(executor);
        // A thread that keeps killing every other kernel in the sandbox, the spare now and the
        // kernel that replaces this one as soon as it is handed over.
        executor.execute(
            "import signal, threading\n"
            "def _keep_killing():\n"
            "    while True:\n"
            "        for pid in siblings():\n"
            "            if b'kernel_main' in _command(pid):\n"
            "                try:\n"
            "                    os.kill(pid, signal.SIGKILL)\n"
            "                except OSError:\n"
            "                    pass\n"
            "        time.sleep(0.001)\n"
            "threading.Thread(target=_keep_killing, daemon=True).start()\n"
            "time.sleep(0.5)");
        // The control: the spare is dead by now.
        CHECK(spare_pids(executor.kernel_pid()).empty());

        executor.reset();
        const auto result = executor.execute("import time\ntime.sleep(1)\nprint('alive')",
                                             std::chrono::seconds(60));
        CHECK(result.text == "alive");
        CHECK(result.notices.empty());
    }
}
