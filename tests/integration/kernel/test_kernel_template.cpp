// Kernels forked from the kernel template against kernels started cold: the same process as far
// as the code in them can tell, and nothing shared between siblings or with the template.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "executor_fixture.hpp"
#include "ipybox/process/containment.hpp"
#include "process_inspection.hpp"

using namespace ipybox;
using ipybox::testing::eventually_gone;
using ipybox::testing::executor_options_for;
using ipybox::testing::expect_error;
using ipybox::testing::start_escaping_child;
using json = nlohmann::json;

namespace {

// What a kernel says about itself, as JSON on one line.
constexpr const char* facts_code = R"PY(
import json as _json, os as _os, sys as _sys, random as _random, threading as _threading
import __main__ as _main_module, ctypes as _ctypes
from ipykernel.kernelapp import IPKernelApp as _IPKernelApp
import numpy as _numpy, matplotlib as _matplotlib
_environ_block = open('/proc/self/environ', 'rb').read().split(b'\0')
print(_json.dumps({
    'pid': _os.getpid(),
    'ppid': _os.getppid(),
    'leads_session': _os.getsid(0) == _os.getpid() and _os.getpgid(0) == _os.getpid(),
    'argv': _sys.argv[:2],
    'argv_length': len(_sys.argv),
    'main': [_main_module.__name__, _main_module.__dict__ is globals()],
    'threads': sorted(t.name for t in _threading.enumerate() if t.name != 'ipybox-parent-watch'),
    'modules': sorted(_sys.modules),
    'random': _random.random(),
    'numpy_random': float(_numpy.random.random()),
    'precision': _numpy.get_printoptions()['precision'],
    'backend': _matplotlib.get_backend(),
    'linewidth': _matplotlib.rcParams['lines.linewidth'],
    'cwd': _os.getcwd(),
    'command_line': (lambda c: [c[0], c[1], 'kernel_main' in c[2], c[3], len(c)])(
        open('/proc/self/cmdline', 'rb').read().rstrip(b'\0').decode().split('\0')),
    'tree_tag_in_block': ('IPYBOX_TREE=' + _os.environ.get('IPYBOX_TREE', '')).encode() in _environ_block,
    'marker': 'marker' in globals(),
    'json_marker': hasattr(_json, 'ipybox_marker'),
    # OpenBLAS threads (numpy's BLAS here): a cold kernel has one per CPU once numpy is imported.
    'blas_threads': (lambda found: _ctypes.CDLL(found[0]).openblas_get_num_threads() if found else None)(
        sorted({line.split()[-1] for line in open('/proc/self/maps') if 'openblas' in line and '.so' in line})),
    # The kernel's configuration: parsed ahead by the template, or by the kernel itself.
    'extensions': sorted(get_ipython().extension_manager.loaded),
    'connection_file': _os.path.basename(_IPKernelApp.instance().connection_file),
    'colors': get_ipython().colors,
    'history_file': get_ipython().history_manager.hist_file,
    'cgroup': open('/proc/self/cgroup').read(),
}))
)PY";

// Leaves traces a sibling must not see.
constexpr const char* mutate_code = R"PY(
import json, numpy, matplotlib, wave
marker = 1
json.ipybox_marker = 1
numpy.set_printoptions(precision=2)
matplotlib.rcParams['lines.linewidth'] = 7
)PY";

json facts(code_executor& executor) {
    return json::parse(executor.execute(facts_code).text);
}

code_executor_options forking_options(const std::string& name) {
    auto options = executor_options_for(name);
    options.keep_spare_kernel = true;  // the template forks the spares
    return options;
}

std::vector<int> children_of(int pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
    std::vector<int> out;
    for (int child = 0; in >> child;) out.push_back(child);
    return out;
}

int thread_count(int pid) {
    int count = 0;
    std::error_code ignored;
    for ([[maybe_unused]] const auto& entry :
         std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ignored)) {
        ++count;
    }
    return count;
}

// Whether, within a few seconds, `count` kernels started cold (children of this process, run
// with a connection file) are alive at once.
bool eventually_cold_kernels(int count) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    do {
        int kernels = 0;
        for (const int child : children_of(::getpid())) {
            std::ifstream in("/proc/" + std::to_string(child) + "/cmdline");
            const std::string line((std::istreambuf_iterator<char>(in)), {});
            if (line.find(std::string("\0-f\0", 4)) != std::string::npos) ++kernels;
        }
        if (kernels == count) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    } while (std::chrono::steady_clock::now() < until);
    return false;
}

}  // namespace

TEST_SUITE("kernel.template") {
    TEST_CASE(
        "a forked kernel is a fresh kernel, as a cold one is, and its siblings share nothing") {
        auto cold_options = forking_options("template-cold");
        cold_options.fork_kernels = false;
        code_executor cold(cold_options);
        const auto cold_facts = facts(cold);
        REQUIRE(cold_facts["ppid"] == ::getpid());  // the control: started by us

        const auto forked_options = forking_options("template-forked");
        code_executor forked(forked_options);
        forked.execute("pass");
        forked.reset();  // waits for the spare, which the template forks
        const auto first = facts(forked);
        const int template_pid = first["ppid"];
        REQUIRE(template_pid != ::getpid());         // forked, not started by us
        CHECK(first["pid"] == forked.kernel_pid());  // the native side knows the child's pid
        CHECK(thread_count(template_pid) == 1);      // the template runs no thread

        // The same process as far as its code can tell.
        for (const char* key :
             {"leads_session", "argv_length", "main", "threads", "precision", "backend",
              "linewidth", "tree_tag_in_block", "marker", "json_marker", "blas_threads",
              "extensions", "connection_file", "colors", "history_file"}) {
            const std::string name = key;
            CAPTURE(name);
            CHECK(first[key] == cold_facts[key]);
        }
        CHECK(first["argv"] == json::array({"-c", "-f"}));
        // Plots come back as images: the inline backend hooks into this kernel's shell.
        CHECK(forked.execute("import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()")
                  .images.size() == 1);
        CHECK(first["cwd"] == std::filesystem::weakly_canonical(forked_options.workspace).string());
        // Every module a cold kernel has is there; more are (the template's imports), but the
        // kernel's own code imported none of them into another kernel (wave above).
        const auto modules = first["modules"].get<std::vector<std::string>>();
        for (const auto& name : cold_facts["modules"].get<std::vector<std::string>>()) {
            CAPTURE(name);
            CHECK(std::binary_search(modules.begin(), modules.end(), name));
        }

        // A sibling (the next spare, forked while this kernel runs) sees nothing this kernel
        // did, shares no socket or pipe with it or with the template, and draws other random
        // numbers.
        forked.execute(mutate_code);
        forked.reset();
        const auto second = facts(forked);
        for (const char* key : {"marker", "json_marker", "precision", "linewidth"}) {
            const std::string name = key;
            CAPTURE(name);
            CHECK(second[key] == cold_facts[key]);
        }
        const auto second_modules = second["modules"].get<std::vector<std::string>>();
        CHECK_FALSE(std::binary_search(second_modules.begin(), second_modules.end(), "wave"));
        CHECK(second["ppid"] == template_pid);
        CHECK(second["pid"] != first["pid"]);
        CHECK(second["random"] != first["random"]);
        CHECK(second["numpy_random"] != first["numpy_random"]);
        const int kernel = second["pid"];
        const auto siblings = children_of(template_pid);
        REQUIRE(siblings.size() >= 2);  // this kernel and the next spare
        for (const int sibling : siblings) {
            if (sibling == kernel) continue;
            CAPTURE(sibling);
            CHECK(testing::shared_sockets_and_pipes(kernel, sibling).empty());
        }
        CHECK(testing::shared_sockets_and_pipes(template_pid, kernel).empty());
        // With ipybox, only the two pipes it handed over (the lifeline and the output).
        const auto with_us = testing::shared_sockets_and_pipes(::getpid(), kernel);
        CHECK(with_us.size() <= 2);
        for (const auto& target : with_us) {
            CAPTURE(target);
            CHECK(target.rfind("pipe:", 0) == 0);
        }
    }

    TEST_CASE(
        "a package installed or a path folder made replaces the template, and nothing else does") {
        auto options = forking_options("template-invalidation");
        const auto site = options.workspace / "site";  // on the kernel's path, not there yet
        options.kernel_env["PYTHONPATH"] = site.string();
        code_executor executor(options);
        executor.execute("pass");
        executor.reset();
        const int first_template = facts(executor)["ppid"];
        REQUIRE(first_template != ::getpid());
        executor.reset();  // the control: nothing changed, the same template forks
        CHECK(facts(executor)["ppid"] == first_template);

        // The folder made (as pip would for a --target install): the spare, forked before, is
        // out of date too, so the kernel after the reset comes from a new template or cold.
        executor.execute("import os; os.makedirs(" + json(site.string()).dump() + ")");
        executor.reset();
        CHECK(facts(executor)["ppid"] != first_template);
        executor.reset();
        const int second_template = facts(executor)["ppid"];
        CHECK(second_template != first_template);
        REQUIRE(second_template != ::getpid());

        // A package installed into it.
        executor.execute("import os; os.makedirs(" + json((site / "newpkg").string()).dump() +
                         "); open(" + json((site / "newpkg" / "__init__.py").string()).dump() +
                         ", 'w').write('VALUE = 3')");
        executor.reset();
        CHECK(executor.execute("import newpkg; newpkg.VALUE").text == "3");
        executor.reset();
        CHECK(facts(executor)["ppid"] != second_template);
    }

    TEST_CASE(
        "a template that answers in the wrong shapes is given up for cold starts, and "
        "ipybox goes on") {
        // The template is within reach of the kernels it forked: its answers are read as a
        // kernel's would be. Each hostile template below answers what a well-behaved one sends,
        // with a field of the wrong type (as the start's answer, or as the answer to a fork); the
        // control passes the same wrapper through to the real template, which forks.
        const std::string ready = R"({"ready": true})";
        const std::vector<std::pair<std::string, std::string>> answers = {
            {R"({"ready": true, "watched": {"/x": ["a", 1]}})", ""},
            {R"({"ready": "yes"})", ""},
            {std::string(40, '[') + std::string(40, ']'), ""},
            {ready, R"({"id": "1", "pid": 5})"},
            {ready, R"({"id": 1, "error": {"why": 1}})"},
            {"", ""},  // the control
        };
        for (const auto& [first, second] : answers) {
            CAPTURE(first);
            CAPTURE(second);
            auto options = forking_options("template-hostile");
            // The template's command line ends with 1024 underscores (kernel_command.cpp).
            const std::string hostile =
                "import socket, sys\n"
                "s = socket.socket(fileno=0)\n"
                "s.send(sys.argv[1].encode())\n"
                "s.recv(65536)\n"
                "if sys.argv[2]: s.send(sys.argv[2].encode())\n"
                "s.recv(65536)\n";
            std::ofstream(options.workspace / "hostile.py") << hostile;
            const auto wrapper =
                first.empty()
                    ? std::string("exec /usr/bin/python3 \"$@\"")
                    : "case \"$*\" in *" + std::string(1024, '_') + ") exec /usr/bin/python3 " +
                          (options.workspace / "hostile.py").string() + " '" + first + "' '" +
                          second + "' ;; esac\n" + "exec /usr/bin/python3 \"$@\"";
            options.python = testing::write_script(options.workspace, "python", wrapper);
            code_executor executor(options);
            executor.execute("pass");
            executor.reset();
            executor.reset();
            const auto seen = facts(executor);
            if (first.empty()) {
                CHECK(seen["ppid"] != ::getpid());  // forked: the wrapper lets it through
            } else {
                CHECK(seen["ppid"] == ::getpid());  // cold, and working
                // The spare is there again, started cold: the template was given up, not asked
                // (and failed on) for every spare.
                CHECK(eventually_cold_kernels(2));
            }
        }
    }

    TEST_CASE("with forking turned off every kernel starts cold, spare included") {
        auto options = forking_options("template-off");
        options.host_environment["IPYBOX_FORK_KERNELS"] = "0";
        code_executor executor(options);
        executor.execute("pass");
        executor.reset();
        CHECK(facts(executor)["ppid"] == ::getpid());
        executor.reset();
        CHECK(facts(executor)["ppid"] == ::getpid());
    }

    TEST_CASE("a forked kernel's death is reported with its signal and the next cell forks anew") {
        code_executor executor(forking_options("template-death"));
        executor.execute("pass");
        executor.reset();
        const int template_pid = facts(executor)["ppid"];
        REQUIRE(template_pid != ::getpid());
        const auto error = expect_error(executor, "import ctypes; ctypes.string_at(0)");
        CHECK(error.error_kind() == code_execution_error::kind::kernel_died);
        CHECK(std::string(error.what()).find("signal 11 (SIGSEGV)") != std::string::npos);
        CHECK(facts(executor)["ppid"] == template_pid);  // the spare, forked, took over
        // The template reaped the dead one once we had read its status: no zombie is left.
        for (const int child : children_of(template_pid)) {
            std::ifstream stat("/proc/" + std::to_string(child) + "/stat");
            std::string text((std::istreambuf_iterator<char>(stat)), {});
            CAPTURE(text);
            CHECK(text.find(") Z ") == std::string::npos);
        }
    }

    TEST_CASE("a forked kernel's tree is contained: limits apply and what it starts ends with it") {
        auto options = forking_options("template-containment");
        options.limits.file_size_bytes = 10ULL << 20;
        code_executor executor(options);
        executor.execute("pass");
        executor.reset();
        const auto contained = facts(executor);
        const int template_pid = contained["ppid"];
        REQUIRE(template_pid != ::getpid());
        // The kernel joined its own control groups (while ipykernel started) before its first
        // cell: it is no longer in the template's.
        if (process::detect_containment().kind != process::containment_kind::rlimits) {
            std::ifstream in("/proc/" + std::to_string(template_pid) + "/cgroup");
            const std::string template_groups((std::istreambuf_iterator<char>(in)), {});
            REQUIRE_FALSE(template_groups.empty());
            CHECK(contained["cgroup"].get<std::string>() != template_groups);
        }
        const auto error = expect_error(executor,
                                        "with open('big.bin', 'wb') as f:\n"
                                        "    for _ in range(1024):\n"
                                        "        f.write(b'x' * (1 << 20))");
        CHECK(std::string(error.what()).find("file-size limit of 10 MiB") != std::string::npos);
        const int escaped = start_escaping_child(executor, options.workspace / "pid");
        REQUIRE(escaped > 0);
        executor.reset();
        CHECK(eventually_gone(escaped));
        // A child forked without exec keeps the kernel's environment block, and with it the
        // tag that finds the tree where there is no cgroup.
        const int forked_child =
            std::stoi(executor
                          .execute("import os, time\n"
                                   "pid = os.fork()\n"
                                   "if pid == 0:\n"
                                   "    os.setsid(); time.sleep(300); os._exit(0)\n"
                                   "print(pid)")
                          .text);
        executor.reset();
        CHECK(eventually_gone(forked_child));
    }

    TEST_CASE("a template that dies is replaced, and the kernels it forked live on") {
        code_executor executor(forking_options("template-dies"));
        executor.execute("pass");
        executor.reset();
        executor.execute("kept = 5");
        const int template_pid = facts(executor)["ppid"];
        REQUIRE(template_pid != ::getpid());
        REQUIRE(::kill(template_pid, SIGKILL) == 0);
        CHECK(eventually_gone(template_pid));
        CHECK(executor.execute("print(kept)").text == "5");
        executor.reset();  // the spare forked before: from the dead template, but alive
        executor.reset();  // forked by the template started in the dead one's place
        const int next_template = facts(executor)["ppid"];
        CHECK(next_template != template_pid);
        CHECK(next_template != ::getpid());
    }
}
