// What no sandbox config can lift, and what a sandboxed kernel cannot learn by guessing (issue
// 35, items 3 and 4), each against the real srt and bubblewrap, with the attack's primitive
// shown to work where ipybox's rule is out of the way.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>

#include "ipybox/process/executables.hpp"
#include "ipybox/sandbox/srt_launcher.hpp"
#include "test_paths.hpp"
#include "tool_fixture.hpp"

using namespace ipybox;
using namespace ipybox::testing;

namespace {

constexpr const char* key_text = "PRIVATE-KEY-4711";

// A session whose HOME holds a credential folder with a key in it.
struct home_with_key {
    std::filesystem::path home = fresh_directory("floor-home");
    home_with_key() {
        std::filesystem::create_directories(home / ".ssh");
        std::ofstream(home / ".ssh" / "id_ed25519") << key_text;
    }
};

code_executor_options sandboxed(const std::string& name, const home_with_key& user,
                                nlohmann::json settings) {
    auto options = tool_executor_options("floor-" + name);
    options.host_environment["HOME"] = user.home.string();
    kernel_sandbox sandbox;
    sandbox.settings = std::move(settings);
    sandbox.srt = node_module(".bin/srt");
    options.sandbox = std::move(sandbox);
    return options;
}

std::string construction_error(const code_executor_options& options) {
    try {
        code_executor executor(options);
        executor.start();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return {};
}

// What `command` prints when srt runs it under `settings` (no ipybox in between).
std::string run_under_srt(const nlohmann::json& settings, const std::string& command,
                          const std::filesystem::path& directory) {
    const auto file = directory / "srt-settings.json";
    sandbox::write_settings(file, settings);
    std::string line;
    for (const auto& part : sandbox::command_prefix(node_module(".bin/srt"), file)) {
        line += "'" + part + "' ";
    }
    line += command + " 2>&1";
    std::string output;
    if (FILE* pipe = ::popen(line.c_str(), "r")) {
        char buffer[4096];
        std::size_t got = 0;
        while ((got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, got);
        ::pclose(pipe);
    }
    return output;
}

std::string read_code(const std::string& path) {
    return "try:\n    print(open(" + nlohmann::json(path).dump() +
           ").read())\nexcept OSError as e:\n    print('denied', type(e).__name__)";
}

}  // namespace

TEST_SUITE("sandbox.floor") {
    TEST_CASE(
        "a config that grants reading ~/.ssh, the workspace .env or ipybox's state is refused "
        "(control: srt alone lets such a grant win over the deny)") {
        const home_with_key user;
        const auto scratch = fresh_directory("floor-control");
        const auto key = (user.home / ".ssh" / "id_ed25519").string();
        // The primitive: srt opens a path inside a denied folder again for an allowRead of it.
        const auto none = nlohmann::json::array();
        const nlohmann::json raw = {
            {"network", {{"allowedDomains", none}, {"deniedDomains", none}}},
            {"filesystem",
             {{"denyRead", {(user.home / ".ssh").string()}},
              {"allowRead", {key}},
              {"allowWrite", none},
              {"denyWrite", none}}}};
        const auto read_raw = run_under_srt(raw, "cat '" + key + "'", scratch);
        CAPTURE(read_raw);
        CHECK(read_raw.find(key_text) != std::string::npos);

        // "~//.ssh" once slipped through as "/.ssh" (found by an outside attacker).
        for (const auto* granted : {"~/.ssh", "~/.ssh/id_ed25519", ".env", "~/.local/state/ipybox",
                                    "~//.ssh", "~//.local/state/ipybox", "~/./.ssh/"}) {
            CAPTURE(granted);
            const auto error = construction_error(
                sandboxed("read", user, {{"filesystem", {{"allowRead", {granted}}}}}));
            CHECK(error.find("keeps unreadable") != std::string::npos);
        }
        // Nor write what the host runs or reads later: a kernel that could replace
        // ~/.local/bin/ipybox got code run by the next launcher (found by an outside attacker).
        for (const auto* granted :
             {"~/.local/state/ipybox", "~//.local/state/ipybox", "~/.local/bin", "~/.config/ipybox",
              "~/.bashrc", "/usr/local", "~"}) {
            CAPTURE(granted);
            const auto error = construction_error(
                sandboxed("write", user, {{"filesystem", {{"allowWrite", {granted}}}}}));
            CHECK(error.find("keeps unwritable") != std::string::npos);
        }
        // The control: a folder of the user's that nothing runs from may be granted.
        CHECK(construction_error(
                  sandboxed("data", user, {{"filesystem", {{"allowWrite", {"~/data"}}}}}))
                  .empty());
        // Nor may a config name a program srt would run on the host.
        CHECK(construction_error(sandboxed("program", user, {{"bwrapPath", "/usr/bin/bwrap"}}))
                  .find("may not set bwrapPath") != std::string::npos);
    }

    TEST_CASE(
        "a granted folder the kernel turns into a link to ~/.ssh stops the next kernel's start "
        "instead of opening the key (control: the grant works while it is a folder)") {
        const home_with_key user;
        auto options = sandboxed("link", user, nullptr);
        const auto data = options.workspace / "shared-data";
        std::filesystem::create_directories(data);
        std::ofstream(data / "id_ed25519") << "not the key";
        options.sandbox->settings = {{"filesystem", {{"allowRead", {data.string()}}}}};
        code_executor executor(options);
        CHECK(executor.execute(read_code("shared-data/id_ed25519")).text == "not the key");
        CHECK(executor.execute(read_code((user.home / ".ssh" / "id_ed25519").string()))
                  .text.rfind("denied", 0) == 0);

        executor.execute("import os, shutil\nshutil.rmtree('shared-data')\nos.symlink(" +
                         nlohmann::json((user.home / ".ssh").string()).dump() + ", 'shared-data')");
        std::string failure;
        try {
            executor.reset();
            // A kernel that started after the link must not see the key through it.
            CHECK(executor.execute(read_code("shared-data/id_ed25519")).text.find(key_text) ==
                  std::string::npos);
        } catch (const code_execution_error& e) {
            failure = e.what();
        }
        CHECK(failure.find("keeps unreadable") != std::string::npos);
    }

    TEST_CASE(
        "a guessable secret is not filled into a server a sandboxed kernel can call, so it "
        "cannot be found through an echo (control: allowed, the echo finds it)") {
        const home_with_key user;
        // The kernel tries candidates through server-everything's echo: the right one comes back
        // redacted as ${IPYBOX_TEST_PIN}.
        const std::string guess =
            "from mcptools.everything import echo\n"
            "found = [c for c in range(482900, 482920)\n"
            "         if '${IPYBOX_TEST_PIN}' in echo.run(echo.Params(message=str(c)))]\n"
            "print(found)";
        auto params = everything_params();
        params["env"] = {{"UNUSED_PIN", "${IPYBOX_TEST_PIN}"}};

        auto allowed = sandboxed("pin-allowed", user, nullptr);
        allowed.host_environment["IPYBOX_TEST_PIN"] = "482913";
        allowed.sandbox->guessable_secrets_allowed = {"IPYBOX_TEST_PIN"};
        {
            code_executor executor(allowed);
            executor.register_mcp_server("everything", params);
            CHECK(executor.execute(guess).text == "[482913]");
        }

        auto refused = sandboxed("pin", user, nullptr);
        refused.host_environment["IPYBOX_TEST_PIN"] = "482913";
        code_executor executor(refused);
        std::string error;
        try {
            executor.register_mcp_server("everything", params);
            error = executor.execute(guess).text;
        } catch (const std::exception& e) {
            error = e.what();
        }
        CHECK(error.find("${IPYBOX_TEST_PIN} is too easy to guess") != std::string::npos);
        CHECK(error.find("--allow-guessable-secret IPYBOX_TEST_PIN") != std::string::npos);
        CHECK(error.find("482913") == std::string::npos);

        // A value that resists guessing is filled as before.
        auto strong = sandboxed("strong", user, nullptr);
        strong.host_environment["IPYBOX_TEST_PIN"] = "v7Q2xK9mPa4Lz8Rw";
        code_executor working(strong);
        working.register_mcp_server("everything", params);
        CHECK(working
                  .execute("from mcptools.everything import echo\n"
                           "print(echo.run(echo.Params(message='hi')))")
                  .text == "Echo: hi");
    }

    TEST_CASE(
        "a workspace that is the home directory keeps the host's programs and settings "
        "unwritable, made or not (control: the same writes succeed unsandboxed)") {
        const home_with_key user;
        std::filesystem::create_directories(user.home / ".local" / "bin");  // as install.sh makes
        const std::vector<std::string> targets = {".local/bin/ipybox",
                                                  ".config/ipybox/sandbox-config.json",
                                                  ".local/lib/python3.11/site-packages/zz.pth",
                                                  ".local/share/ipybox/gentools/x.py",
                                                  ".bashrc",
                                                  "bin/ls"};
        std::string code = "import json, os\nwritten = []\nfor p in " +
                           nlohmann::json(targets).dump() + " + ['notes.txt']:\n" +
                           "    path = os.path.join(" + nlohmann::json(user.home.string()).dump() +
                           ", p)\n"
                           "    try:\n"
                           "        os.makedirs(os.path.dirname(path), exist_ok=True)\n"
                           "        open(path, 'w').write('x')\n"
                           "        written.append(p)\n"
                           "    except OSError:\n"
                           "        pass\n"
                           "print(json.dumps(written, separators=(',', ':')))";
        {
            auto plain = tool_executor_options("floor-home-control");
            plain.workspace = user.home;
            plain.host_environment["HOME"] = user.home.string();
            code_executor executor(plain);
            auto all = targets;
            all.push_back("notes.txt");
            CHECK(executor.execute(code).text == nlohmann::json(all).dump());
        }
        for (const auto& target : targets) std::filesystem::remove_all(user.home / target);
        std::filesystem::remove_all(user.home / ".config");
        std::filesystem::remove_all(user.home / "bin");

        auto options = sandboxed("home-workspace", user, nullptr);
        options.workspace = user.home;
        {
            code_executor executor(options);
            CHECK(executor.execute(code).text == R"(["notes.txt"])");
        }
        // The placeholders that held ~/.config and ~/bin went with the last kernel.
        CHECK_FALSE(std::filesystem::exists(user.home / ".config"));
        CHECK_FALSE(std::filesystem::exists(user.home / "bin"));

        auto inside = sandboxed("home-bin-workspace", user, nullptr);
        inside.workspace = user.home / ".local" / "bin";
        CHECK(construction_error(inside).find(
                  "lies in " + (user.home / ".local" / "bin").string()) != std::string::npos);
    }

    TEST_CASE(
        "programs planted in the workspace's .venv/bin are not run on the host: srt's node, an "
        "MCP server's command (control: without the sandbox the same PATH runs them)") {
        const home_with_key user;
        const auto path = process::current_environment().at("PATH");
        const auto node = process::find_executable("node", path);
        REQUIRE(node);
        // What an activated venv the kernel wrote would put first on PATH.
        const auto plant = [&](const std::filesystem::path& workspace) {
            const auto bin = workspace / ".venv" / "bin";
            std::filesystem::create_directories(bin);
            const auto marker = workspace / "planted-node-ran";
            std::ofstream(bin / "node") << "#!/bin/sh\ntouch '" << marker.string() << "'\nexec '"
                                        << node->string() << "' \"$@\"\n";
            std::filesystem::permissions(bin / "node", std::filesystem::perms::owner_all);
            return std::pair{bin.string() + ":" + path, marker};
        };
        const std::string call =
            "from mcptools.everything import echo\nprint(echo.run(echo.Params(message='x')))";

        auto plain = tool_executor_options("floor-venv-control");
        const auto [plain_path, plain_marker] = plant(plain.workspace);
        plain.host_environment["PATH"] = plain_path;
        {
            code_executor executor(plain);
            executor.register_mcp_server("everything", everything_params());
            CHECK(executor.execute(call).text == "Echo: x");
        }
        CHECK(std::filesystem::exists(plain_marker));

        auto options = sandboxed("venv", user, nullptr);
        const auto [sandbox_path, marker] = plant(options.workspace);
        options.host_environment["PATH"] = sandbox_path;
        code_executor executor(options);
        executor.register_mcp_server("everything", everything_params());
        CHECK(executor.execute(call).text == "Echo: x");
        CHECK_FALSE(std::filesystem::exists(marker));
    }
}
