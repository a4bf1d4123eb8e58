// The quickstart of the reference, in C++: generate the API of server-everything, call its tools
// from kernel code, and get typed results back.
#include <doctest/doctest.h>

#include "ipybox/mcp_sources.hpp"
#include "test_paths.hpp"
#include "tool_fixture.hpp"

using namespace ipybox;
using namespace ipybox::testing;

TEST_SUITE("tools.generated_api") {
    TEST_CASE("register_mcp_server writes mcptools/<server>/ and returns the module names") {
        auto options = tool_executor_options("register");
        code_executor executor(options);
        const auto modules = executor.register_mcp_server("everything", everything_params());
        CHECK(std::find(modules.begin(), modules.end(), "get_sum") != modules.end());
        CHECK(std::find(modules.begin(), modules.end(), "get_structured_content") != modules.end());
        CHECK(std::filesystem::exists(options.workspace / "mcptools/everything/__init__.py"));
        CHECK(std::filesystem::exists(options.workspace / "mcptools/everything/get_sum.py"));
    }

    TEST_CASE("generated tools run from kernel code: text, structured Result and images") {
        code_executor executor(tool_executor_options("quickstart"));
        executor.register_mcp_server("everything", everything_params());
        const auto text = executor
                              .execute(
                                  "from mcptools.everything import get_sum, echo\n"
                                  "print(get_sum.run(get_sum.Params(a=2, b=3)))\n"
                                  "print(echo.run(echo.Params(message='hello')))")
                              .text;
        CHECK(text == "The sum of 2 and 3 is 5.\nEcho: hello");

        const auto structured =
            executor
                .execute(
                    "from mcptools.everything import get_structured_content as g\n"
                    "r = g.run(g.Params(location='Chicago'))\n"
                    "print(type(r).__name__, sorted(r.dict() if hasattr(r, 'dict') else "
                    "r.model_dump()))")
                .text;
        CHECK(structured == "Result ['conditions', 'humidity', 'temperature']");

        const auto image =
            executor
                .execute(
                    "from mcptools.everything import get_tiny_image as t\n"
                    "r = t.run(t.Params())\n"
                    "import os\nprint(len(r.images), all(os.path.exists(p) for p in r.images), "
                    "r.images[0].suffix)")
                .text;
        CHECK(image == "1 True .png");
    }

    TEST_CASE("both import styles of the reference work") {
        code_executor executor(tool_executor_options("imports"));
        executor.register_mcp_server("everything", everything_params());
        CHECK(executor
                  .execute("from mcptools.everything.get_sum import Params, run\n"
                           "run(Params(a=1, b=1))")
                  .text == "'The sum of 1 and 1 is 2.'");
    }

    TEST_CASE("a long-running tool with progress completes") {
        code_executor executor(tool_executor_options("long-running"));
        executor.register_mcp_server("everything", everything_params());
        const auto text =
            executor
                .execute(
                    "from mcptools.everything import trigger_long_running_operation as op\n"
                    "print(op.run(op.Params(duration=1, steps=2)))")
                .text;
        CHECK(text.find("completed") != std::string::npos);
    }

    TEST_CASE("concurrent calls from kernel threads all succeed") {
        code_executor executor(tool_executor_options("concurrent"));
        executor.register_mcp_server("everything", everything_params());
        const auto text = executor
                              .execute(
                                  "from concurrent.futures import ThreadPoolExecutor\n"
                                  "from mcptools.everything import get_sum\n"
                                  "with ThreadPoolExecutor(8) as pool:\n"
                                  "    out = list(pool.map(lambda i: "
                                  "get_sum.run(get_sum.Params(a=i, b=i)), range(16)))\n"
                                  "print(out[15])")
                              .text;
        CHECK(text == "The sum of 15 and 15 is 30.");
    }

    TEST_CASE("a tool that reports isError raises ToolRunnerError with the server's text") {
        auto options = tool_executor_options("filesystem");
        const auto root = options.workspace / "fsroot";
        std::filesystem::create_directories(root);
        code_executor executor(options);
        executor.register_mcp_server(
            "fs", {{"command", "node"},
                   {"args",
                    {node_module("@modelcontextprotocol/server-filesystem/dist/index.js").string(),
                     root.string()}}});
        executor.execute("open('fsroot/hello.txt', 'w').write('hello fs')");
        const auto read = executor
                              .execute(
                                  "from mcptools.fs import read_text_file as r\n"
                                  "print(r.run(r.Params(path='" +
                                  (root / "hello.txt").string() + "')).content)")
                              .text;
        CHECK(read == "hello fs");
        const auto denied = executor
                                .execute(
                                    "from mcptools.fs import read_text_file as r\n"
                                    "from ipybox_runtime.errors import ToolRunnerError\n"
                                    "try:\n    r.run(r.Params(path='/etc/passwd'))\n"
                                    "except ToolRunnerError as e:\n    print('denied:', e)")
                                .text;
        CHECK(denied.find("denied:") == 0);
        CHECK(denied.find("Access denied") != std::string::npos);
    }

    TEST_CASE("generate_mcp_sources works without an executor") {
        const auto root = fresh_directory("free-generate") / "mcptools";
        const auto modules = generate_mcp_sources("everything", everything_params(), root);
        CHECK(modules.size() >= 10);
        CHECK(std::filesystem::exists(root / "everything" / "echo.py"));
    }
}
