// Kernels forked from one template share its sandbox, and so a PID namespace: each can signal
// the template and the spare (issue 35, item 7). A kernel so signalled is never handed over, and
// a kernel given up by a reset can no longer signal anything once the reset hands its
// successor over.
#include <doctest/doctest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

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

}  // namespace

TEST_SUITE("sandbox.siblings") {
    TEST_CASE(
        "a spare and a template stopped by a sibling are not handed over: the reset gives a "
        "kernel that runs (control: the sibling's SIGSTOP did stop them)") {
        code_executor executor(sandboxed_with_spare("stop"));
        executor.execute("pass");
        executor.reset();  // now in a forked kernel, beside its template and the spare
        REQUIRE(executor.execute(find_siblings_code).text != "0");
        const auto before = spare_pids(executor.kernel_pid());
        REQUIRE_FALSE(before.empty());
        executor.execute("import signal\nfor pid in siblings():\n    os.kill(pid, signal.SIGSTOP)");
        for (const int pid : before) CHECK(state_of(pid) == 'T');  // the control

        executor.reset();
        const auto result = executor.execute("print(6 * 7)", std::chrono::seconds(60));
        CHECK(result.text == "42");
        for (const int pid : before) CHECK(executor.kernel_pid() != pid);
    }

    TEST_CASE(
        "a kernel given up by a reset cannot kill its successor: it is ended before the "
        "successor is handed over (control: while it runs, it kills the spare)") {
        code_executor executor(sandboxed_with_spare("kill"));
        executor.execute("pass");
        executor.reset();
        REQUIRE(executor.execute(find_siblings_code).text != "0");
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
