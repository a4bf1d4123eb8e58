// Security properties of tool calling (ARCHITECTURE.md): only the host registers servers, the
// tool server authenticates its callers, secrets stay host-side, names cannot escape mcptools/.
#include <doctest/doctest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "process_inspection.hpp"
#include "tool_fixture.hpp"

using namespace ipybox;
using namespace ipybox::testing;

namespace {

std::string read_tree(const std::filesystem::path& root) {
    std::string all;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
        if (!entry.is_regular_file()) continue;
        std::ifstream in(entry.path());
        std::stringstream content;
        content << in.rdbuf();
        all += content.str();
    }
    return all;
}

// True if a process started by this test (an MCP server) has `entry` ("NAME=value") in its
// environment: read host-side, where the kernel cannot look.
bool a_child_environment_holds(const std::string& entry) {
    for (const int pid : tree_of(::getpid())) {
        if (pid == ::getpid()) continue;
        std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
        for (std::string variable; std::getline(in, variable, '\0');) {
            if (variable == entry) return true;
        }
    }
    return false;
}

// What get_env of server-everything tells the kernel, as Python's (value in it, placeholder in it).
std::string kernel_sees(code_executor& executor, const std::string& value,
                        const std::string& placeholder) {
    return executor
        .execute(
            "from mcptools.everything import get_env\n"
            "told = str(get_env.run(get_env.Params()))\n"
            "(" +
            nlohmann::json(value).dump() + " in told, " + nlohmann::json(placeholder).dump() +
            " in told)")
        .text;
}

// Kernel code speaking HTTP to the tool socket directly.
const char* raw_request =
    "import http.client, json, os, socket\n"
    "class C(http.client.HTTPConnection):\n"
    "    def connect(self):\n"
    "        self.sock = socket.socket(socket.AF_UNIX)\n"
    "        self.sock.connect(os.environ['IPYBOX_TOOL_SOCKET'])\n"
    "def post(body, token):\n"
    "    c = C('localhost')\n"
    "    headers = {'Authorization': 'Bearer ' + token} if token is not None else {}\n"
    "    c.request('POST', '/run', json.dumps(body), headers)\n"
    "    r = c.getresponse()\n"
    "    return r.status, json.loads(r.read())\n";

}  // namespace

TEST_SUITE("tools.security") {
    TEST_CASE("the tool server refuses callers without the session token") {
        code_executor executor(tool_executor_options("token"));
        executor.register_mcp_server("everything", everything_params());
        executor.execute(raw_request);
        const auto body = std::string(
            "{'server_name': 'everything', 'tool_name': 'echo', "
            "'tool_args': {'message': 'x'}}");
        CHECK(executor.execute("s, b = post(" + body + ", None)\nprint(s, b['error']['type'])")
                  .text == "401 unauthorized");
        CHECK(executor.execute("post(" + body + ", 'forged')[0]").text == "401");
        CHECK(executor.execute("post(" + body + ", os.environ['IPYBOX_TOOL_TOKEN'])[0]").text ==
              "200");
    }

    TEST_CASE("kernel code cannot call a server the host did not register") {
        auto options = tool_executor_options("unregistered");
        code_executor executor(options);
        executor.register_mcp_server("everything", everything_params());
        executor.execute(raw_request);
        const auto text = executor
                              .execute(
                                  "post({'server_name': 'evil', 'tool_name': 'x', 'tool_args': {},"
                                  "      'server_params': {'command': 'touch', 'args': ['pwned']}},"
                                  "     os.environ['IPYBOX_TOOL_TOKEN'])[1]['error']['type']")
                              .text;
        CHECK(text == "'unknown_server'");
        // A spawned `touch pwned` would run in the workspace (the default cwd of stdio servers).
        CHECK_FALSE(std::filesystem::exists(options.workspace / "pwned"));
    }

    TEST_CASE("server parameters sent by kernel code are ignored") {
        auto options = tool_executor_options("params-ignored");
        code_executor executor(options);
        executor.register_mcp_server("everything", everything_params());
        executor.execute(raw_request);
        const auto text = executor
                              .execute(
                                  "post({'server_name': 'everything', 'tool_name': 'echo', "
                                  "'tool_args': {'message': 'm'},"
                                  "      'server_params': {'command': 'touch', 'args': ['pwned']}},"
                                  "     os.environ['IPYBOX_TOOL_TOKEN'])[1]['result']['text']")
                              .text;
        CHECK(text == "'Echo: m'");
        CHECK_FALSE(std::filesystem::exists(options.workspace / "pwned"));
    }

    TEST_CASE(
        "${VAR} secrets are filled host-side and never reach the kernel or the generated files") {
        auto options = tool_executor_options("secrets");
        options.host_environment["IPYBOX_TEST_SECRET"] = "s3cr3t-value";
        code_executor executor(options);
        auto params = everything_params();
        params["env"] = {{"SERVER_SECRET", "${IPYBOX_TEST_SECRET}"}};
        executor.register_mcp_server("everything", params);
        CHECK(read_tree(options.workspace / "mcptools").find("s3cr3t") == std::string::npos);
        CHECK(executor.execute("import os\n[k for k, v in os.environ.items() if 's3cr3t' in v]")
                  .text == "[]");
        // The server itself did receive it; when it tells its environment, the kernel reads the
        // placeholder instead (the redaction rule).
        CHECK(kernel_sees(executor, "s3cr3t-value", "SERVER_SECRET\": \"${IPYBOX_TEST_SECRET}") ==
              "(False, True)");
        CHECK(a_child_environment_holds("SERVER_SECRET=s3cr3t-value"));
    }

    TEST_CASE("variables come from the workspace .env when the environment lacks them") {
        auto options = tool_executor_options("dotenv");
        std::filesystem::create_directories(options.workspace);
        std::ofstream(options.workspace / ".env") << "DOTENV_ONLY=from-dotenv\n";
        code_executor executor(options);
        auto params = everything_params();
        params["env"] = {{"FROM_DOTENV", "${DOTENV_ONLY}"}};
        executor.register_mcp_server("everything", params);
        CHECK(kernel_sees(executor, "from-dotenv", "${DOTENV_ONLY}") == "(False, True)");
        CHECK(a_child_environment_holds("FROM_DOTENV=from-dotenv"));
    }

    TEST_CASE("a missing variable is an error naming it") {
        code_executor executor(tool_executor_options("missing-var"));
        auto params = everything_params();
        params["env"] = {{"TOKEN", "${IPYBOX_SURELY_UNDEFINED_VARIABLE}"}};
        CHECK_THROWS_WITH(executor.register_mcp_server("everything", params),
                          doctest::Contains("IPYBOX_SURELY_UNDEFINED_VARIABLE"));
    }

    TEST_CASE(
        "server names that are not Python identifiers are refused before anything is written") {
        auto options = tool_executor_options("bad-names");
        code_executor executor(options);
        std::filesystem::create_directories(options.workspace / "mcptools" / "keep");
        for (const std::string name :
             {"..", "/abs", "", "a/b", "class", "2fa", "a-b", "__init__"}) {
            CAPTURE(name);
            CHECK_THROWS_AS(executor.register_mcp_server(name, everything_params()),
                            std::invalid_argument);
        }
        CHECK(std::filesystem::exists(options.workspace / "mcptools" / "keep"));
        CHECK(std::distance(std::filesystem::directory_iterator(options.workspace / "mcptools"),
                            std::filesystem::directory_iterator()) == 1);
    }
}
