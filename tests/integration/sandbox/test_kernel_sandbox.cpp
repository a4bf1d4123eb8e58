// A sandboxed kernel (srt: bubblewrap on Linux, Seatbelt on macOS): what it can and cannot reach,
// that everything else keeps working, and that a sandbox that cannot start means no kernel at
// all. Kernels forked from a template are Linux's alone: test_sandbox_forked.cpp. Bubblewrap's
// own view of /tmp and /run sits under IPYBOX_TEST_LINUX (tests/CMakeLists.txt).
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "process_inspection.hpp"
#include "sandbox_fixture.hpp"
#include "test_paths.hpp"
#include "tool_fixture.hpp"

using namespace ipybox;
using namespace ipybox::testing;

namespace {

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
