// The one redaction rule through `ipybox run` (core/redactor.hpp): values filled from ${VAR}
// placeholders (the host's environment and the workspace .env) never appear in what ipybox
// emits: stdout, stderr with logs at debug level, the errors and results kernel code receives
// (printed by the cell), and the generated mcptools/. Each run fills fresh random markers into
// every part of server parameters and provokes every failure it can: a refused connection, a URL
// whose path names no transport, user info in a URL, a host that does not resolve, a command
// that does not exist, and a server that echoes its arguments and environment in its stdout,
// stderr, tool descriptions, a result, a tool error and on stderr as it exits mid-call. The
// control runs the same with the markers put in directly: there they do show, so the search
// would find a leak. `ipybox doctor --approval-policy` is checked the same way, with a tool whose
// name holds the value.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "cli_runner.hpp"
#include "ipybox/core/random.hpp"
#include "ipybox/core/sha256.hpp"
#include "test_paths.hpp"

using namespace ipybox::testing;

namespace {

std::filesystem::path srt() {
    return source_dir() / "tests" / "node" / "node_modules" / ".bin" / "srt";
}

// A marker: mixed case, so that a lower-cased copy (a URL's host) is a distinct string.
std::string marker(const std::string& role) {
    return "Mk" + role + ipybox::core::random_hex(8);
}

struct scenario {
    std::map<std::string, std::string> values;   // variable -> marker
    std::map<std::string, std::string> servers;  // name -> JSON parameters
};

// Server parameters with `${VAR}` where `direct` is false, the markers themselves where true.
scenario make_scenario(bool direct) {
    scenario s;
    for (const auto* name :
         {"PATH_TOKEN", "QUERY_TOKEN", "HEADER_TOKEN", "BADPATH_TOKEN", "USER_TOKEN", "PASS_TOKEN",
          "HOST_TOKEN", "COMMAND_TOKEN", "ARG_TOKEN", "ENV_TOKEN"}) {
        s.values[name] = marker(std::string(name).substr(0, 3));
    }
    const auto v = [&](const std::string& name) {
        return direct ? s.values.at(name) : "${" + name + "}";
    };
    const auto echo = source_dir() / "tests" / "support" / "secret_echo_server.mjs";
    s.servers["refused"] =
        R"({"url": "http://127.0.0.1:1/mcp/)" + v("PATH_TOKEN") + "/mcp?key=" + v("QUERY_TOKEN") +
        R"(", "headers": {"Authorization": "Bearer )" + v("HEADER_TOKEN") + R"("}})";
    s.servers["badpath"] = R"({"url": "http://127.0.0.1:1/)" + v("BADPATH_TOKEN") + R"(/x"})";
    s.servers["userinfo"] =
        R"({"url": "http://)" + v("USER_TOKEN") + ":" + v("PASS_TOKEN") + R"(@127.0.0.1:1/mcp"})";
    s.servers["nohost"] = R"({"url": "http://)" + v("HOST_TOKEN") + R"(.invalid/mcp"})";
    s.servers["nocommand"] = R"({"command": "/nonexistent/)" + v("COMMAND_TOKEN") + R"(/server"})";
    s.servers["echo"] = R"({"command": "node", "args": [")" + echo.string() + R"(", ")" +
                        v("ARG_TOKEN") + R"("], "env": {"SECRET_ONE": ")" + v("ENV_TOKEN") +
                        R"("}})";
    return s;
}

const char* calls =
    "from ipybox_runtime import tool_client\n"
    "for server, tool in [('refused', 'x'), ('badpath', 'x'), ('userinfo', 'x'), ('nohost', 'x'),\n"
    "                     ('nocommand', 'x'), ('echo', 'tell'), ('echo', 'fail'),\n"
    "                     ('echo', 'crash'), ('echo', 'tell')]:\n"
    "    try:\n"
    "        print(server, tool, 'gave', repr(tool_client.call_tool(server, tool, {})))\n"
    "    except Exception as error:\n"
    "        print(server, tool, 'raised', type(error).__name__, error)\n"
    "import pathlib\n"
    "for path in sorted(pathlib.Path('mcptools').rglob('*.py')):\n"
    "    print(path, path.read_text())\n";

struct emitted {
    command_result run;
    std::string everything;  // stdout, stderr and every file under mcptools/
};

emitted run_scenario(const scenario& s, const std::string& extra_flags) {
    const auto workspace = fresh_directory("cli-redaction");
    // Half of the values from the workspace .env, half from the host's environment.
    std::ofstream dotenv(workspace / ".env");
    std::string environment = "IPYBOX_SRT=" + shell_quote(srt().string());
    bool to_dotenv = false;
    for (const auto& [name, value] : s.values) {
        if (to_dotenv) {
            dotenv << name << "=" << value << "\n";
        } else {
            environment += " " + name + "=" + value;
        }
        to_dotenv = !to_dotenv;
    }
    dotenv.close();
    // `ipybox generate` first: mcptools/echo/ from the descriptions that echo the values (it
    // reads ./.env of its own folder, so here every value comes from its environment).
    std::string all_in_environment;
    for (const auto& [name, value] : s.values) all_in_environment += name + "=" + value + " ";
    const auto generated = run_ipybox(
        "generate --server-name echo --server-params " + shell_quote(s.servers.at("echo")) +
            " --root-dir " + shell_quote((workspace / "mcptools").string()) + " --log-level debug",
        "", all_in_environment);
    std::string flags = "--log-level debug --approve all " + extra_flags;
    for (const auto& [name, params] : s.servers) {
        flags += " --server " + shell_quote(name + "=" + params);
    }
    emitted out;
    out.run = run_ipybox("run --workspace " + shell_quote(workspace.string()) + " " + flags +
                             " -c " + shell_quote(calls),
                         "", environment);
    out.everything = out.run.out + out.run.err + generated.out + generated.err;
    if (std::filesystem::exists(workspace / "mcptools")) {
        for (const auto& entry :
             std::filesystem::recursive_directory_iterator(workspace / "mcptools")) {
            if (!entry.is_regular_file()) continue;
            std::ifstream in(entry.path());
            std::stringstream text;
            text << in.rdbuf();
            out.everything += text.str();
        }
    }
    return out;
}

std::string lower(std::string text) {
    for (auto& c : text) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return text;
}

// The markers found in `text`, in any case.
std::vector<std::string> leaked(const scenario& s, const std::string& text) {
    std::vector<std::string> found;
    const auto lowered = lower(text);
    for (const auto& [name, value] : s.values) {
        if (lowered.find(lower(value)) != std::string::npos) found.push_back(name);
    }
    return found;
}

void check_redacted(const std::string& extra_flags) {
    const auto s = make_scenario(false);
    const auto e = run_scenario(s, extra_flags);
    INFO(e.everything);
    // Every failure happened (so there was something to leak), and the servers were reached.
    CHECK(e.run.out.find("refused x raised ToolRunnerError") != std::string::npos);
    CHECK(e.run.out.find("nocommand x raised ToolRunnerError") != std::string::npos);
    CHECK(e.run.out.find("fail: args ${ARG_TOKEN}; env SECRET_ONE=${ENV_TOKEN}") !=
          std::string::npos);
    CHECK(e.run.out.find("echo crash raised") != std::string::npos);
    CHECK(e.run.out.find("structured={'told': 'args ${ARG_TOKEN}; env SECRET_ONE=${ENV_TOKEN}'}") !=
          std::string::npos);
    CHECK(e.everything.find("this server was started with args ${ARG_TOKEN}") != std::string::npos);
    CHECK(e.run.err.find("[debug]") != std::string::npos);
    CHECK(leaked(s, e.everything) == std::vector<std::string>{});
}

// `ipybox doctor --approval-policy` against a workspace whose registry holds the echo server,
// started with SECRET_TOOL = `tool_name_value`, so that one of its tools is named
// read_<value>; `environment` fills the placeholders. Its standard output.
std::string doctor_report(const std::string& tool_name_value, const std::string& environment) {
    const auto workspace = fresh_directory("doctor-redaction");
    const auto state = fresh_directory("doctor-redaction-state");
    const auto echo = source_dir() / "tests" / "support" / "secret_echo_server.mjs";
    const nlohmann::json registry = {{"servers",
                                      {{"echo",
                                        {{"command", "node"},
                                         {"args", {echo.string()}},
                                         {"env", {{"SECRET_TOOL", tool_name_value}}}}}}}};
    const auto registries = state / "ipybox" / "workspaces";
    std::filesystem::create_directories(registries);
    const auto key = std::filesystem::weakly_canonical(workspace).string();
    std::ofstream(registries / (ipybox::core::sha256_hex(key) + ".json")) << registry.dump();
    const auto policy = workspace / "policy.json";
    std::ofstream(policy) << R"({"rules": [{"match": "echo.read_*", "action": "deny"}]})";
    const auto r =
        run_ipybox("doctor --approval-policy " + shell_quote(policy.string()) + " --workspace " +
                       shell_quote(workspace.string()),
                   "", "XDG_STATE_HOME=" + shell_quote(state.string()) + " " + environment);
    INFO(r.out, r.err);
    CHECK(r.exit_code == 0);
    return r.out;
}

}  // namespace

TEST_SUITE("cli.redaction") {
    TEST_CASE("doctor shows a tool name that holds a filled value as its ${VAR}") {
        const auto value = marker("TOOL");
        const auto report = doctor_report("${TOOL_TOKEN}", "TOOL_TOKEN=" + value);
        INFO(report);
        CHECK(report.find("rules[0] \"echo.read_*\" (deny)\n      echo.read_${TOOL_TOKEN} (") !=
              std::string::npos);
        CHECK(lower(report).find(lower(value)) == std::string::npos);
    }

    TEST_CASE("the control: the server does put the value in the tool's name") {
        const auto value = marker("TOOL");
        const auto report = doctor_report(value, "");
        INFO(report);
        CHECK(report.find("echo.read_" + value) != std::string::npos);
    }

    TEST_CASE("no value filled from a placeholder appears in anything ipybox run emits") {
        check_redacted("");
    }

    TEST_CASE("no value filled from a placeholder reaches a sandboxed kernel or stderr") {
        check_redacted("--sandbox");
    }

    TEST_CASE("the control: values put in directly do appear, so a leak would be found") {
        const auto s = make_scenario(true);
        const auto e = run_scenario(s, "");
        INFO(e.everything);
        // Every path the redacted runs are searched on carries its marker here, but the query,
        // which ipybox never prints.
        const auto found = leaked(s, e.everything);
        for (const auto* name : {"PATH_TOKEN", "BADPATH_TOKEN", "USER_TOKEN", "PASS_TOKEN",
                                 "HOST_TOKEN", "COMMAND_TOKEN", "ARG_TOKEN", "ENV_TOKEN"}) {
            CHECK_MESSAGE(std::find(found.begin(), found.end(), name) != found.end(), name);
        }
    }
}
