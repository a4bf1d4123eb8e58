// Sandboxed kernels forked from a template inside the template's sandbox (Linux's alone: built
// where IPYBOX_PLATFORM is linux): the spare and the template are siblings a kernel can see, so
// what a forked kernel can read of them, where its session key lies, and how the template is
// given up when the workspace or the kernel's groups change.
#include <doctest/doctest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "sandbox_fixture.hpp"
#include "test_paths.hpp"
#include "tool_fixture.hpp"

using namespace ipybox;
using namespace ipybox::testing;

namespace {

std::string command_line(int pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

int parent_of(int pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::istringstream fields(text.substr(text.rfind(')') + 2));
    std::string state;
    int parent = 0;
    fields >> state >> parent;
    return parent;
}

// A sandboxed session with a spare kernel: its first kernel starts cold, the spares are forked
// from its kernel template.
code_executor_options with_spare(const std::string& name) {
    auto options = sandboxed(name);
    options.keep_spare_kernel = true;
    use_own_home(options, name);
    return options;
}

// Brings the session to a kernel forked from its template (the spare a reset promotes).
void use_forked_kernel(code_executor& executor) {
    executor.execute("pass");
    executor.reset();
}

bool forked_from_template(int kernel) {
    return command_line(parent_of(kernel)).find("kernel_template") != std::string::npos;
}

// Waits until another kernel runs in the sandbox of the kernel's template: the spare, forked
// while the kernel runs (the poll ends when it is there).
constexpr const char* wait_for_sibling_code = R"(import os, time
def siblings():
    found = []
    for p in os.listdir('/proc'):
        try:
            if p.isdigit() and int(p) != os.getpid() and (
                    b'kernel_main' in open(f'/proc/{p}/cmdline', 'rb').read()):
                found.append(p)
        except OSError:
            pass
    return found
deadline = time.monotonic() + 60
while not siblings() and time.monotonic() < deadline:
    time.sleep(0.05)
print(len(siblings()))
)";

// Tries to open the memory of the kernel's template (its parent), of the other kernels of the
// sandbox (the spare) and of a process the kernel started itself.
constexpr const char* reach_code = R"(import os, subprocess
def reach(pid):
    try:
        open(f'/proc/{pid}/mem', 'rb').close()
        return 'open'
    except OSError as error:
        return type(error).__name__
status = open('/proc/self/status').read()
print('capabilities', [l.split()[1] for l in status.splitlines() if l.startswith('CapEff')][0])
child = subprocess.Popen(['sleep', '60'])
print('own child:', reach(child.pid))
child.kill()
print('template:', reach(os.getppid()))
for pid in siblings():  # defined by wait_for_sibling_code, run before in this kernel
    print('sibling:', reach(pid))
)";

// The files under the kernel's folder's parent (the template's folder, for a forked kernel) that
// hold the kernel's session key.
constexpr const char* key_search_code = R"(import os
from ipykernel.kernelapp import IPKernelApp
app = IPKernelApp.instance()
key = app.session.key
assert len(key) >= 32
hits = []
for root, _, files in os.walk(os.path.dirname(os.path.dirname(app.connection_file))):
    for name in files:
        try:
            with open(os.path.join(root, name), 'rb') as f:
                if key in f.read():
                    hits.append(name)
        except OSError:
            pass
print(sorted(hits))
)";

}  // namespace

TEST_SUITE("sandbox.kernel") {
    TEST_CASE(
        "a sandboxed session forks its kernels from a template inside its sandbox (control: "
        "IPYBOX_FORK_KERNELS=0 starts them cold, each in a sandbox of its own)") {
        auto options = with_spare("forked");
        code_executor executor(options);
        use_forked_kernel(executor);
        // The spare, now the kernel: a child of the template, which srt started.
        const auto kernel = executor.kernel_pid();
        CHECK(forked_from_template(kernel));
        CHECK(command_line(kernel).find("kernel_main") != std::string::npos);
        CHECK(executor.execute(write_code(fresh_directory("sandbox-forked-out") / "x.txt"))
                  .text.rfind("denied", 0) == 0);

        auto cold_options = with_spare("forked-control");
        cold_options.host_environment["IPYBOX_FORK_KERNELS"] = "0";
        code_executor cold(cold_options);
        cold.execute("pass");
        cold.reset();
        cold.execute("pass");
        // The kernel's process, as ipybox sees it, is the sandbox runtime it started itself.
        CHECK(parent_of(cold.kernel_pid()) == ::getpid());
    }

    TEST_CASE(
        "a repository nested in the workspace after the template started is protected from the "
        "next kernel on: neither the template nor a spare forked from it is used again") {
        auto options = with_spare("nested-later");
        code_executor executor(options);
        use_forked_kernel(executor);
        const auto first_template = parent_of(executor.kernel_pid());
        REQUIRE(command_line(first_template).find("kernel_template") != std::string::npos);
        // The spare is forked before the repository is made. The control: the kernel forked
        // before it was made can write it.
        CHECK(executor.execute(wait_for_sibling_code).text != "0");
        const auto git = options.workspace / "vendor" / "lib" / ".git";
        std::filesystem::create_directories(git);
        std::ofstream(git / "config") << "[core]\n";
        CHECK(executor.execute(write_code(git / "config")).text == "written");
        executor.reset();
        CHECK(parent_of(executor.kernel_pid()) != first_template);
        CHECK(executor.execute(write_code(git / "config")).text.rfind("denied", 0) == 0);
        executor.reset();  // from a new template, started with the repository in its settings
        CHECK(forked_from_template(executor.kernel_pid()));
        CHECK(parent_of(executor.kernel_pid()) != first_template);
        CHECK(executor.execute(write_code(git / "config")).text.rfind("denied", 0) == 0);
    }

    TEST_CASE(
        "a forked kernel that cannot join its control groups never serves, and kernels start "
        "cold from then on (control: the same template forks when joining works)") {
        // The template run through a wrapper that makes each child's move into its groups fail
        // (or not: the control), as it would where the sandbox kept it from them.
        const auto dir = fresh_directory("sandbox-join");
        std::ofstream(dir / "template.py") << R"py(import os, sys
from ipybox_runtime import forked_kernel, kernel_template
def cannot_join(self):
    for fd in self._descriptors:
        os.close(fd)
    self._error = PermissionError("the move was refused (test)")
if sys.argv[1] == "refuse":
    forked_kernel.Joining._run = cannot_join
kernel_template.main()
)py";
        for (const std::string mode : {"refuse", "allow"}) {
            CAPTURE(mode);
            auto options = with_spare("join-" + mode);
            // The template's command line ends with 1024 underscores (kernel_command.cpp).
            const auto wrapper = "case \"$*\" in *" + std::string(1024, '_') +
                                 ") exec /usr/bin/python3 " + (dir / "template.py").string() + " " +
                                 mode + " \"$3\" ;; esac\nexec /usr/bin/python3 \"$@\"\n";
            {
                std::ofstream script(dir / ("python-" + mode));
                script << "#!/bin/sh\n" << wrapper;
            }
            std::filesystem::permissions(dir / ("python-" + mode),
                                         std::filesystem::perms::owner_all);
            options.python = dir / ("python-" + mode);
            code_executor executor(options);
            executor.execute("pass");
            executor.reset();
            executor.reset();
            const bool forked =
                command_line(parent_of(executor.kernel_pid())).find("template.py") !=
                std::string::npos;
            CHECK(forked == (mode == "allow"));
            CHECK(executor.execute("print(1)").text == "1");
        }
    }

    TEST_CASE(
        "a forked kernel can neither read the memory of its template or of the spare kernel "
        "beside it (control: a process of its own, of the same user, it can)") {
        auto options = with_spare("undumpable");
        code_executor executor(options);
        use_forked_kernel(executor);
        CHECK(executor.execute(wait_for_sibling_code).text != "0");
        const auto text = executor.execute(reach_code).text;
        // The kernel runs without capabilities in the sandbox (root's would mask the check).
        CHECK(text.find("capabilities 0000000000000000") != std::string::npos);
        CHECK(text.find("own child: open") != std::string::npos);
        CHECK(text.find("template: PermissionError") != std::string::npos);
        CHECK(text.find("sibling: PermissionError") != std::string::npos);
    }

    TEST_CASE(
        "no file a forked kernel can read holds its session key (control: a cold kernel's "
        "connection file holds it)") {
        auto options = with_spare("key");
        code_executor executor(options);
        use_forked_kernel(executor);
        CHECK(forked_from_template(executor.kernel_pid()));
        CHECK(executor.execute(key_search_code).text == "[]");

        code_executor cold(sandboxed("key-control"));
        CHECK(cold.execute(key_search_code).text == "['kernel.json']");
    }
}

// The kernel being retired shares its sandbox with the spare that replaces it, and can write the
// spare's IPython folder before the spare reads it: a forked sandboxed kernel runs nothing from
// its profile (forked_kernel.py, _skip_profile_code). Run outside the sandbox: the race with a
// sibling cannot be won on purpose, the planted profile can be.
TEST_CASE(
    "a kernel configured from the fork request runs no config file or startup script of its "
    "profile and writes no connection file (control: ipykernel alone runs both and writes it)") {
    const auto dir = fresh_directory("sandbox-profile");
    std::ofstream(dir / "probe.py") << R"(import json, os, sys
mode, here = sys.argv[1], os.path.dirname(os.path.abspath(__file__))
profile = os.path.join(here, "ipython-" + mode, "profile_default")
os.makedirs(os.path.join(profile, "startup"))
for name in ("startup/00-planted.py", "ipython_kernel_config.py", "ipython_config.py"):
    with open(os.path.join(profile, name), "w") as planted:
        marker = os.path.join(here, mode + "-ran-" + os.path.basename(name))
        planted.write(f"open({marker!r}, 'w').close()\n")
os.environ["IPYTHONDIR"] = os.path.dirname(profile)
info = {"transport": "ipc", "ip": os.path.join(here, mode + "-k"), "shell_port": 1,
        "iopub_port": 2, "stdin_port": 3, "control_port": 4, "hb_port": 5, "key": "k" * 64,
        "signature_scheme": "hmac-sha256"}
from ipykernel.kernelapp import IPKernelApp
app = IPKernelApp.instance()
if mode == "forked":
    from ipybox_runtime import forked_kernel
    forked_kernel.use_connection(app, info)
app.initialize(["-f", os.path.join(here, mode + "-kernel.json"), "--IPKernelApp.quiet=True"])
left = sorted(n for n in os.listdir(here) if n.startswith(mode + "-") and "-k-" not in n)
with open(os.path.join(here, mode + ".json"), "w") as out:
    json.dump({"files": left, "key": app.session.key.decode()}, out)
os._exit(0)
)";
    const auto run = [&](const std::string& mode) {
        const auto command = "cd / && PYTHONPATH=" + (source_dir() / "native" / "python").string() +
                             " /usr/bin/python3 " + (dir / "probe.py").string() + " " + mode +
                             " > " + (dir / (mode + ".log")).string() + " 2>&1";
        REQUIRE(std::system(command.c_str()) == 0);
        std::ifstream in(dir / (mode + ".json"));
        return nlohmann::json::parse(in);
    };
    const auto forked = run("forked");
    CHECK(forked["files"] == nlohmann::json::array());
    CHECK(forked["key"] == std::string(64, 'k'));
    const auto control = run("cold");
    CHECK(control["files"] ==
          nlohmann::json({"cold-kernel.json", "cold-ran-00-planted.py",
                          "cold-ran-ipython_config.py", "cold-ran-ipython_kernel_config.py"}));
}
