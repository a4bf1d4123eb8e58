// A sandboxed kernel (srt: bubblewrap on Linux, Seatbelt on macOS): what it can and cannot reach,
// that everything else keeps working, and that a sandbox that cannot start means no kernel at
// all. What only one platform has (forked kernels; bubblewrap's view of /tmp and /run; /proc)
// sits under IPYBOX_TEST_FORKING or IPYBOX_TEST_LINUX (tests/CMakeLists.txt).
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "process_inspection.hpp"
#include "test_paths.hpp"
#include "tool_fixture.hpp"

using namespace ipybox;
using namespace ipybox::testing;

namespace {

std::filesystem::path srt_executable() {
    return node_module(".bin/srt");
}

kernel_sandbox sandbox_of(nlohmann::json settings, std::filesystem::path srt) {
    kernel_sandbox sandbox;
    sandbox.settings = std::move(settings);
    sandbox.srt = std::move(srt);
    return sandbox;
}

code_executor_options sandboxed(const std::string& name, nlohmann::json settings = nullptr) {
    auto options = tool_executor_options("sandbox-" + name);
    options.sandbox = sandbox_of(std::move(settings), srt_executable());
    return options;
}

// A TCP listener on the host's loopback, on a free port.
class loopback_listener {
  public:
    loopback_listener() {
        fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0);
        REQUIRE(::listen(fd_, 8) == 0);
        socklen_t length = sizeof address;
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length);
        port_ = ntohs(address.sin_port);
    }
    ~loopback_listener() { ::close(fd_); }
    int port() const { return port_; }

  private:
    int fd_ = -1;
    int port_ = 0;
};

std::string connect_code(int port) {
    return "import socket\n"
           "try:\n"
           "    socket.create_connection(('127.0.0.1', " +
           std::to_string(port) +
           "), timeout=5)\n"
           "    print('connected')\n"
           "except OSError as e:\n"
           "    print('refused', type(e).__name__)";
}

std::string write_code(const std::filesystem::path& target) {
    return "try:\n"
           "    open(" +
           nlohmann::json(target.string()).dump() +
           ", 'w').write('x')\n"
           "    print('written')\n"
           "except OSError as e:\n"
           "    print('denied', type(e).__name__)";
}

// Prints the file's text, or "denied <error>" when it cannot be read.
std::string read_code(const std::filesystem::path& target) {
    return "try:\n"
           "    print(open(" +
           nlohmann::json(target.string()).dump() +
           ").read())\n"
           "except OSError as e:\n"
           "    print('denied', type(e).__name__)";
}

// Runs code that would leave a file behind; the start must fail and the file must not appear.
code_execution_error start_failure(code_executor& executor,
                                   const std::filesystem::path& workspace) {
    try {
        executor.execute("open('ran', 'w')");
    } catch (const code_execution_error& e) {
        CHECK(e.error_kind() == code_execution_error::kind::start_failed);
        CHECK_FALSE(std::filesystem::exists(workspace / "ran"));
        return e;
    }
    FAIL("the code ran: the kernel started without its sandbox");
    throw std::logic_error("unreachable");
}

#if IPYBOX_TEST_FORKING  // the helpers of the tests of forked kernels
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

#endif  // IPYBOX_TEST_FORKING

}  // namespace

TEST_SUITE("sandbox.kernel") {
    TEST_CASE("a sandboxed kernel keeps state, streams output, runs shell commands and plots") {
        code_executor executor(sandboxed("basics"));
        executor.execute("x = 41");
        CHECK(executor.execute("print(x + 1)").text == "42");
        CHECK(executor.execute("!echo from the shell").text == "from the shell");
        const auto plot =
            executor.execute("import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.show()");
        CHECK(plot.images.size() == 1);
    }

    TEST_CASE("the host's loopback is out of reach (control: reachable without the sandbox)") {
        loopback_listener listener;
        code_executor plain(tool_executor_options("sandbox-control"));
        CHECK(plain.execute(connect_code(listener.port())).text == "connected");
        code_executor executor(sandboxed("network"));
        CHECK(executor.execute(connect_code(listener.port())).text.rfind("refused", 0) == 0);
    }

    TEST_CASE("writes go to the workspace only") {
        const auto options = sandboxed("writes");
        const auto outside = fresh_directory("sandbox-outside");
        code_executor executor(options);
        CHECK(executor.execute(write_code(options.workspace / "inside.txt")).text == "written");
        CHECK(std::filesystem::exists(options.workspace / "inside.txt"));
        CHECK(executor.execute(write_code(outside / "escaped.txt")).text.rfind("denied", 0) == 0);
        CHECK_FALSE(std::filesystem::exists(outside / "escaped.txt"));
        // Shell commands started from the kernel are inside the same sandbox.
        executor.execute("!touch " + (outside / "from-shell.txt").string());
        CHECK_FALSE(std::filesystem::exists(outside / "from-shell.txt"));
        executor.execute("!touch from-shell.txt");
        CHECK(std::filesystem::exists(options.workspace / "from-shell.txt"));
    }

    TEST_CASE("the workspace .env cannot be read, and its values never reach the kernel") {
        auto options = sandboxed("dotenv");
        std::filesystem::create_directories(options.workspace);
        std::ofstream(options.workspace / ".env") << "SANDBOX_SECRET=do-not-leak-4711\n";
        code_executor executor(options);
        const auto text = executor
                              .execute(
                                  "import os\n"
                                  "try:\n    print(open('.env').read())\nexcept OSError as e:\n    "
                                  "print('denied', type(e).__name__)\n"
                                  "print(os.environ.get('SANDBOX_SECRET'))")
                              .text;
        CHECK(text == "denied PermissionError\nNone");
    }

    TEST_CASE("tool calls still work: the tool server and MCP servers live outside the sandbox") {
        code_executor executor(sandboxed("tools"));
        executor.register_mcp_server("everything", everything_params());
        CHECK(executor
                  .execute("from mcptools.everything import echo\n"
                           "print(echo.run(echo.Params(message='through the wall')))")
                  .text == "Echo: through the wall");
    }

    TEST_CASE("execute() refuses a save into the user library, stream() asks it (the control)") {
        auto options = sandboxed("save");
        const auto library = fresh_directory("sandbox-save-library");
        options.library_roots = {library};
        const std::string save =
            "from ipybox_runtime.gentools import new_gentool\n"
            "print(new_gentool('hushed', 'whisper', scope='user', files={'api.py': "
            "'\"\"\"Whispers.\"\"\"\\n', 'impl.py': '# impl\\n'}))";
        code_executor executor(options);
        try {
            executor.execute(save);
            FAIL("execute() saved into the user library without asking anyone");
        } catch (const code_execution_error& e) {
            CHECK(std::string(e.what()).find("execute() asks nobody") != std::string::npos);
        }
        CHECK_FALSE(std::filesystem::exists(library / "hushed" / "whisper"));
        const auto record = consume(executor.stream(save), [](const approval_request& request) {
            return request.is_library_save();
        });
        REQUIRE(record.approvals.size() == 1);
        CHECK(record.approvals[0].question().find("  action:    gentools.hushed.whisper\n") !=
              std::string::npos);
        CHECK(std::filesystem::exists(library / "hushed" / "whisper" / "impl.py"));
    }

    TEST_CASE("after reset the new kernel is sandboxed too") {
        auto options = sandboxed("reset");
        options.keep_spare_kernel = true;
        const auto outside = fresh_directory("sandbox-reset-outside");
        code_executor executor(options);
        executor.execute("y = 1");
        executor.reset();
        CHECK(executor.execute("print('y' in dir())").text == "False");
        CHECK(executor.execute(write_code(outside / "escaped.txt")).text.rfind("denied", 0) == 0);
    }

#if IPYBOX_TEST_FORKING  // kernels forked from a template: Linux's alone
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

#endif  // IPYBOX_TEST_FORKING

    TEST_CASE(
        "a kernel can neither read nor list another session's folder or /var/run (control: a "
        "kernel without the sandbox reads it)") {
        char other[] = "/tmp/ipybox-other-XXXXXX";
        REQUIRE(::mkdtemp(other) != nullptr);
        const std::filesystem::path folder(other);
        std::ofstream(folder / "secret") << "private";
        REQUIRE_FALSE(std::filesystem::is_empty("/var/run"));  // the host's service sockets
        code_executor executor(sandboxed("isolation-read"));
        // Bubblewrap shows an empty /tmp and /run (/var/run leads there); Seatbelt refuses to read
        // or list them (/private/tmp, /private/var/run).
        const auto read = executor.execute(read_code(folder / "secret")).text;
        const auto listed =
            executor
                .execute(
                    "import os\n"
                    "def listing(path):\n"
                    "    try:\n"
                    "        return os.listdir(path)\n"
                    "    except OSError:\n"
                    "        return []\n"
                    "print(listing(" +
                    nlohmann::json(folder.string()).dump() + "), listing('/var/run'))")
                .text;
        // The control: a kernel without the sandbox reads the file.
        code_executor plain(tool_executor_options("isolation-read-control"));
        const auto control = plain.execute(read_code(folder / "secret")).text;
        std::filesystem::remove_all(folder);
        CHECK(read.rfind("denied", 0) == 0);
        CHECK(listed == "[] []");
        CHECK(control == "private");
    }

#if IPYBOX_TEST_LINUX  // bubblewrap's view: /tmp and /run of the sandbox's own
    TEST_CASE(
        "a kernel sees neither other sessions' nor the spare kernel's files, its sandbox config or "
        "/run") {
        auto options = sandboxed("isolation");
        options.keep_spare_kernel = true;  // the spare's keys and sockets sit next to ours
        use_own_home(options, "isolation");
        // Another session's private directory, as an unsandboxed ipybox would leave in /tmp.
        char other[] = "/tmp/ipybox-other-XXXXXX";
        REQUIRE(::mkdtemp(other) != nullptr);
        code_executor executor(options);
        const auto other_visible =
            executor.execute("import os\nprint(os.path.exists('" + std::string(other) + "'))").text;
        std::filesystem::remove(other);
        CHECK(other_visible == "False");
        const auto text = executor
                              .execute(
                                  "import glob, os\n"
                                  "from ipykernel.kernelapp import IPKernelApp\n"
                                  "own = os.path.dirname(IPKernelApp.instance().connection_file)\n"
                                  "print(sorted(os.listdir(os.path.dirname(own))) == "
                                  "sorted(['tools', os.path.basename(own)]))\n"
                                  "print(glob.glob('/tmp/ipybox-sbx-*'))\n"
                                  "print(os.listdir('/run'))")
                              .text;  // the host's service sockets live there
        REQUIRE_FALSE(std::filesystem::is_empty("/run"));
        CHECK(text == "True\n[]\n[]");
        // The settings are there, for srt, outside the kernel's view and out of its reach.
        nlohmann::json settings_files = nlohmann::json::array();
        for (const auto& entry : std::filesystem::directory_iterator("/tmp")) {
            if (entry.path().filename().string().rfind("ipybox-sbx-", 0) != 0) continue;
            for (const auto& file : std::filesystem::directory_iterator(entry.path())) {
                settings_files.push_back(file.path().string());
            }
        }
        REQUIRE_FALSE(settings_files.empty());
        CHECK(executor
                  .execute("import json\nwritten = []\n"
                           "for path in json.loads(" +
                           nlohmann::json(settings_files.dump()).dump() +
                           "):\n"
                           "    try:\n        open(path, 'a').close(); written.append(path)\n"
                           "    except OSError:\n        pass\n"
                           "print(written)")
                  .text == "[]");
    }

#endif  // IPYBOX_TEST_LINUX

    TEST_CASE("the user's config adds rules: a read-denied folder") {
        // Inside the workspace, which stays readable wherever it lies (/tmp included).
        auto options = tool_executor_options("sandbox-config");
        const auto secret_dir = options.workspace / "secrets";
        std::filesystem::create_directories(secret_dir);
        std::ofstream(secret_dir / "key") << "private";
        std::ofstream(options.workspace / "outside-secrets") << "private";
        options.sandbox =
            sandbox_of({{"filesystem", {{"denyRead", {secret_dir.string()}}}}}, srt_executable());
        code_executor executor(options);
        // Bubblewrap hides a read-denied folder behind an empty one; Seatbelt refuses the read.
        CHECK(executor.execute(read_code("secrets/key")).text.rfind("denied", 0) == 0);
        CHECK(executor.execute(read_code("outside-secrets")).text == "private");  // the control
#if IPYBOX_TEST_LINUX
        const auto text = executor
                              .execute(
                                  "import os\n"
                                  "print(os.path.isdir('secrets'), "
                                  "os.path.exists(os.path.join('secrets', 'key')))")
                              .text;
        CHECK(text == "True False");
#endif
    }

    TEST_CASE("fails closed: without srt no kernel starts") {
        auto options = tool_executor_options("sandbox-missing");
        options.sandbox = sandbox_of(nullptr, "/nonexistent/srt");
        code_executor executor(options);
        const auto error = start_failure(executor, options.workspace);
        CHECK(error.ename() == "SandboxUnavailable");
        CHECK(std::string(error.what()).find("sandbox-runtime") != std::string::npos);
        CHECK(executor.kernel_pid() == 0);
    }

    TEST_CASE("fails closed: when srt cannot build the sandbox the kernel never runs") {
        // A pattern srt refuses (it ends in a separator): srt exits before the kernel runs.
        auto options = sandboxed("broken", {{"filesystem", {{"denyRead", {"/nonexistent/*/"}}}}});
        options.start_timeout = std::chrono::seconds(20);
        code_executor executor(options);
        const auto error = start_failure(executor, options.workspace);
        CHECK(std::string(error.what()).find("separator") != std::string::npos);
    }

    TEST_CASE("a config that is not an object is refused at construction") {
        auto options = tool_executor_options("sandbox-bad-config");
        options.sandbox = sandbox_of(nlohmann::json::array(), srt_executable());
        CHECK_THROWS_AS(code_executor{options}, std::invalid_argument);
    }
}

TEST_CASE("a sandboxed kernel (and srt, and what srt runs) shares no socket with ipybox") {
    // Made before the kernel starts, without close-on-exec, as Asio and ZeroMQ do.
    int pair[2];
    REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0);
    code_executor executor(sandboxed("fds"));
    executor.start();
    REQUIRE(tree_of(executor.kernel_pid()).size() >= 2);  // srt and what it wraps
    for (const auto& target : shared_sockets_and_pipes(::getpid(), executor.kernel_pid())) {
        CAPTURE(target);
        CHECK(target.rfind("pipe:", 0) == 0);  // the lifeline and the output pipe
    }
    ::close(pair[0]);
    ::close(pair[1]);
}

#if IPYBOX_TEST_FORKING
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
#endif  // IPYBOX_TEST_FORKING
