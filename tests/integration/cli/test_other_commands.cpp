#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>

#include "cli_runner.hpp"
#include "test_paths.hpp"

using namespace ipybox::testing;

namespace {

// srt from the npm test peers (tests/node); CI installs it.
std::filesystem::path srt_executable() {
    const auto path = source_dir() / "tests" / "node" / "node_modules" / ".bin" / "srt";
    REQUIRE_MESSAGE(std::filesystem::exists(path),
                    "install the npm test peers: npm install --prefix tests/node");
    return path;
}

}  // namespace

TEST_SUITE("cli.other") {
    TEST_CASE("--version prints the version") {
        const auto r = run_ipybox("--version");
        CHECK(r.exit_code == 0);
        CHECK(r.out.rfind("ipybox 0.", 0) == 0);
    }

    TEST_CASE("doctor reports the interpreter and package versions") {
        const auto r = run_ipybox("doctor");
        CHECK(r.exit_code == 0);
        CHECK(r.out.find("ipykernel") != std::string::npos);
        CHECK(r.out.find("pydantic") != std::string::npos);
        CHECK(r.out.find("/usr/bin/python3") != std::string::npos);
    }

    TEST_CASE("doctor says how kernels start: forked from the template, or cold and why") {
        const auto forked = run_ipybox("doctor");
        CHECK(forked.out.find("  kernel start  forked from a kernel template") !=
              std::string::npos);
        const auto cold = run_ipybox("doctor", "", "IPYBOX_FORK_KERNELS=0");
        CHECK(cold.out.find("  kernel start  cold, with a spare kernel started ahead: "
                            "IPYBOX_FORK_KERNELS=0 turns forking off") != std::string::npos);
    }

    TEST_CASE("doctor prints where the user library of saved actions is") {
        const auto data = fresh_directory("doctor-data");
        const auto r = run_ipybox("doctor", "", "XDG_DATA_HOME=" + data.string());
        CHECK(r.out.find("  user library  " + (data / "ipybox" / "gentools").string() + "\n") !=
              std::string::npos);
    }

    TEST_CASE("doctor names the workspace's .env variables too easy to guess, never their values") {
        const auto workspace = fresh_directory("doctor-guessable");
        std::ofstream(workspace / ".env") << "PIN=482913\nTOKEN=v7Q2xK9mPa4Lz8Rw\n";
        const auto r = run_ipybox("doctor --workspace " + shell_quote(workspace.string()));
        CHECK(r.out.find("too easy to guess to fill in under --sandbox: PIN\n") !=
              std::string::npos);
        CHECK(r.out.find("--allow-guessable-secret") != std::string::npos);
        CHECK(r.out.find("482913") == std::string::npos);
        CHECK(r.out.find("TOKEN") == std::string::npos);  // the control: a random value passes
    }

    TEST_CASE("doctor names a missing interpreter and how to fix it") {
        const auto r = run_ipybox("doctor --python /nonexistent/python");
        CHECK(r.exit_code == 3);
        CHECK(r.out.find("apt-get install python3-ipykernel") != std::string::npos);
    }

    TEST_CASE("doctor says what to install on Debian, Fedora and macOS, this system marked") {
        const auto r = run_ipybox("doctor --python /nonexistent/python");
        CHECK(r.out.find("Debian/Ubuntu: sudo apt-get install python3-ipykernel python3-pydantic "
                         "python3-matplotlib   <- this system") != std::string::npos);
        CHECK(r.out.find("Fedora: sudo dnf install python3-ipykernel python3-pydantic "
                         "python3-matplotlib\n") != std::string::npos);
        CHECK(r.out.find("macOS (Homebrew): brew install python, then the virtual environment") !=
              std::string::npos);
    }

    TEST_CASE("doctor makes the virtual environment from a plain Python that lacks ipykernel") {
        // A venv without system site packages: Debian's Python, but none of its ipykernel.
        const auto dir = fresh_directory("plain-python");
        const auto venv = dir / "venv";
        REQUIRE(std::system(("/usr/bin/python3 -m venv --without-pip " + shell_quote(venv.string()))
                                .c_str()) == 0);
        const auto python = (venv / "bin" / "python").string();
        const auto r = run_ipybox("doctor --python " + shell_quote(python));
        CHECK(r.exit_code == 3);
        CHECK(r.out.find("rejected: cannot import ipykernel") != std::string::npos);
        CHECK(r.out.find(python + " -m venv ~/.local/share/ipybox/venv && "
                                  "~/.local/share/ipybox/venv/bin/python -m pip install ipykernel "
                                  "pydantic matplotlib, then pass --python "
                                  "~/.local/share/ipybox/venv/bin/python") != std::string::npos);
    }

    TEST_CASE("a kernel does not outlive an ipybox process that is killed, sandboxed or not") {
        for (const std::string flags : {"", " --sandbox"}) {
            CAPTURE(flags);
            const auto dir = fresh_directory("orphan");
            // ipybox runs in the background; its kernel is found by its working directory (its
            // own pid is another inside a sandbox), then ipybox gets SIGKILL.
            const std::string script =
                "cd " + shell_quote(dir.string()) +
                " && (IPYBOX_SRT=" + shell_quote(srt_executable().string()) + " " +
                shell_quote(ipybox_executable().string()) + " run --workspace ." + flags +
                " -c 'import time; open(\"started\", \"w\").close(); time.sleep(120)'"
                " > /dev/null 2>&1 & echo $! > ipid) ; "
                "for i in $(seq 300); do [ -e started ] && break; sleep 0.1; done; "
                "kpid=; for p in $(pgrep -f ipybox_runtime.kernel_main); do "
                "[ \"$(readlink /proc/$p/cwd)\" = \"$PWD\" ] && kpid=$p; done; "
                "[ -n \"$kpid\" ] || exit 2; "
                "kill -KILL $(cat ipid); "
                "for i in $(seq 100); do kill -0 $kpid 2>/dev/null || exit 0; sleep 0.1; done; "
                "exit 1";
            CHECK(std::system(("sh -c " + shell_quote(script)).c_str()) == 0);
        }
    }

    TEST_CASE("mcp --sandbox fails closed when the sandbox runtime is missing") {
        const auto r = run_ipybox(
            "mcp --sandbox --workspace " + shell_quote(fresh_directory("sandbox").string()), "",
            "IPYBOX_SRT=/nonexistent/srt");
        CHECK(r.exit_code == 3);
        CHECK(r.err.find("refusing to run the kernel unsandboxed") != std::string::npos);
        CHECK(r.err.find("npm install -g @anthropic-ai/sandbox-runtime") != std::string::npos);
        CHECK(r.out.empty());
    }

    TEST_CASE(
        "the reference's `ipybox --workspace DIR --sandbox` form is the MCP server, sandboxed") {
        const auto r = run_ipybox(
            "--workspace " + shell_quote(fresh_directory("top-level").string()) + " --sandbox", "",
            "IPYBOX_SRT=/nonexistent/srt");
        CHECK(r.exit_code == 3);
        CHECK(r.err.find("refusing to run the kernel unsandboxed") != std::string::npos);
    }

    TEST_CASE("the reference's `ipybox --workspace DIR --log-level ERROR` form is the MCP server") {
        const auto dir = fresh_directory("top-level-log-level");
        // The client is gone at once (stdin is empty): the server starts, then ends cleanly.
        const auto r =
            run_ipybox("--workspace " + shell_quote(dir.string()) + " --log-level ERROR");
        CHECK(r.exit_code == 0);
        CHECK(r.out.empty());
        CHECK(r.err.find("ipybox:") == std::string::npos);
    }

    TEST_CASE("a top-level --sandbox before another subcommand is an error, not ignored") {
        const auto dir = fresh_directory("top-level-run");
        const auto r = run_ipybox("--sandbox run --workspace " + shell_quote(dir.string()) +
                                  " -c 'open(\"ran\", \"w\")'");
        CHECK(r.exit_code == 2);
        CHECK(r.err.find("put --sandbox after the subcommand") != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(dir / "ran"));
    }

    TEST_CASE("run --sandbox fails closed: no srt, no kernel, exit 3, a bad config exits 2") {
        const auto dir = fresh_directory("run-sandbox-missing");
        auto r = run_ipybox(
            "run --sandbox --workspace " + shell_quote(dir.string()) + " -c 'open(\"ran\", \"w\")'",
            "", "IPYBOX_SRT=/nonexistent/srt");
        CHECK(r.exit_code == 3);
        CHECK(r.err.find("/nonexistent/srt") != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(dir / "ran"));

        r = run_ipybox("run --sandbox-config /nonexistent/config.json --workspace " +
                       shell_quote(dir.string()) + " -c 'open(\"ran\", \"w\")'");
        CHECK(r.exit_code == 2);
        CHECK_FALSE(std::filesystem::exists(dir / "ran"));
    }

    TEST_CASE("generate refuses a server name that is not an identifier, before connecting") {
        const auto root = fresh_directory("generate-bad");
        const auto r = run_ipybox(
            "generate --server-name ../evil --server-params '{\"command\":\"true\"}' --root-dir " +
            shell_quote((root / "mcptools").string()));
        CHECK(r.exit_code == 2);
        CHECK_FALSE(std::filesystem::exists(root / "evil"));
    }
}
