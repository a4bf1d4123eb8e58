// The gentools library from the command line, with real kernels and the real server-everything:
// `ipybox gentools check` on good and broken actions, and `ipybox generate` naming the saved
// actions that call a tool whose schema changed (as register_mcp_server does).
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "cli_runner.hpp"
#include "test_paths.hpp"

namespace fs = std::filesystem;
using namespace ipybox::testing;

namespace {

void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// A project whose state and user library are its own, never the user's.
std::string isolated_environment(const fs::path& base) {
    return "XDG_STATE_HOME=" + shell_quote((base / "state").string()) +
           " XDG_DATA_HOME=" + shell_quote((base / "data").string());
}

const std::string good_api = R"("""Doubles a number.

>>> run(21)
42
"""

__all__ = ["run"]


def run(number: int) -> int:
    from . import impl

    return impl.run(number)
)";

const std::string good_impl = "def run(number: int) -> int:\n    return 2 * number\n";

void action(const fs::path& gentools, const std::string& name, const std::string& api,
            const std::string& impl) {
    write(gentools / "math" / "__init__.py", "");
    write(gentools / "math" / name / "__init__.py", "from .api import *  # noqa\n");
    write(gentools / "math" / name / "api.py", api);
    write(gentools / "math" / name / "impl.py", impl);
}

fs::path everything_script() {
    const auto path = source_dir() / "tests" / "node" / "node_modules" / "@modelcontextprotocol" /
                      "server-everything" / "dist" / "index.js";
    REQUIRE_MESSAGE(fs::exists(path),
                    "install the npm test peers: npm install --prefix tests/node");
    return path;
}

// A JSON string literal of `text` (paths: no control characters).
std::string json_string(const std::string& text) {
    std::string out = "\"";
    for (const char c : text) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

std::string node_params(const fs::path& script, const std::string& extra = "") {
    return "{\"command\":\"node\",\"args\":[" + json_string(script.string()) + extra + "]}";
}

const std::string echo_impl =
    "from mcptools.everything import echo\n\n\ndef run(message: str) -> str:\n"
    "    return str(echo.run(echo.Params(message=message)))\n";

command_result generate_everything(const fs::path& base, const std::string& params) {
    return run_ipybox("generate --server-name everything --server-params " + shell_quote(params) +
                          " --root-dir " + shell_quote((base / "project" / "mcptools").string()),
                      "", isolated_environment(base));
}

}  // namespace

TEST_SUITE("cli.gentools") {
    TEST_CASE("gentools check passes a good action with exit status 0") {
        const auto base = fresh_directory("gentools-check-good");
        action(base / "project" / "gentools", "double", good_api, good_impl);
        const auto r =
            run_ipybox("gentools check --workspace " + shell_quote((base / "project").string()), "",
                       isolated_environment(base));
        CHECK_MESSAGE(r.exit_code == 0, (r.out + r.err));
        CHECK(r.out.find("ok      gentools.math.double (project): imports (api.py without "
                         "impl.py); 1 examples ran") != std::string::npos);
        CHECK(r.out.find("1 actions checked, 0 broken") != std::string::npos);
    }

    TEST_CASE("gentools check names broken and impl-only actions, exits 1, and deletes nothing") {
        const auto base = fresh_directory("gentools-check-broken");
        const auto gentools = base / "project" / "gentools";
        action(gentools, "double", good_api, good_impl);
        action(gentools, "missing_import", good_api, "import no_such_module\n" + good_impl);
        // api.py imports impl.py at once: it only works where impl.py's imports do.
        action(gentools, "needs_impl", "from .impl import run\n\n__all__ = [\"run\"]\n", good_impl);
        action(gentools, "wrong_example", good_api, "def run(number: int) -> int:\n    return 0\n");
        const auto r =
            run_ipybox("gentools check --workspace " + shell_quote((base / "project").string()), "",
                       isolated_environment(base));
        CHECK_MESSAGE(r.exit_code == 1, (r.out + r.err));
        CHECK(r.out.find("ok      gentools.math.double") != std::string::npos);
        CHECK(r.out.find("BROKEN  gentools.math.missing_import (project): impl.py does not "
                         "import: ModuleNotFoundError") != std::string::npos);
        CHECK(r.out.find("BROKEN  gentools.math.needs_impl (project): api.py does not import "
                         "without impl.py") != std::string::npos);
        CHECK(r.out.find("BROKEN  gentools.math.wrong_example (project): an example in api.py "
                         "failed") != std::string::npos);
        CHECK(r.out.find("4 actions checked, 3 broken") != std::string::npos);
        for (const auto* name : {"missing_import", "needs_impl", "wrong_example"}) {
            CHECK(fs::exists(gentools / "math" / name / "api.py"));
            CHECK(fs::exists(gentools / "math" / name / "impl.py"));
        }
        CHECK(read(gentools / "math" / "missing_import" / "impl.py").rfind("import no_such", 0) ==
              0);
    }

    TEST_CASE("generate names the saved actions that call a tool whose schema changed") {
        const auto base = fresh_directory("generate-pins");
        const auto everything = node_params(everything_script(), ",\"stdio\"");
        REQUIRE_MESSAGE(generate_everything(base, everything).exit_code == 0, "first generation");
        write(base / "project" / "gentools" / "text" / "shout" / "api.py", "\"\"\"Shouts.\"\"\"\n");
        write(base / "project" / "gentools" / "text" / "shout" / "impl.py", echo_impl);
        // One in the user library too, and one that calls no changed tool.
        const auto user = base / "data" / "ipybox" / "gentools";
        write(user / "text" / "loud" / "api.py", "\"\"\"Loud.\"\"\"\n");
        write(user / "text" / "loud" / "impl.py", echo_impl);
        write(user / "math" / "add" / "api.py", "\"\"\"Adds.\"\"\"\n");
        write(user / "math" / "add" / "impl.py", "from mcptools.everything import get_sum\n");

        // Control: regenerating an unchanged server names nothing (and pins the actions).
        const auto unchanged = generate_everything(base, everything);
        CHECK(unchanged.exit_code == 0);
        CHECK(unchanged.err.find("schema changed") == std::string::npos);

        const auto changed = generate_everything(
            base, node_params(source_dir() / "tests" / "support" / "changed_echo_server.mjs"));
        CHECK_MESSAGE(changed.exit_code == 0, changed.err);
        CHECK(changed.err.find("saved code actions call MCP tools whose schema changed since "
                               "they were saved:\n") != std::string::npos);
        CHECK(changed.err.find("  gentools.text.loud (calls everything.echo)\n") !=
              std::string::npos);
        CHECK(changed.err.find("  gentools.text.shout (calls everything.echo)\n") !=
              std::string::npos);
        // A tool the server no longer has counts as changed.
        CHECK(changed.err.find("  gentools.math.add (calls everything.get_sum)\n") !=
              std::string::npos);
    }
}
