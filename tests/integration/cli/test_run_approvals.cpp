// The reference's quickstart from the command line: generate the API of server-everything, run
// code calling two tools, approve one and reject the other on the terminal; and shell commands
// under --approve-shell-commands.
#include <doctest/doctest.h>

#include <fstream>

#include "cli_runner.hpp"
#include "test_paths.hpp"

using namespace ipybox::testing;

namespace {

std::string everything_server() {
    const auto entry = source_dir() / "tests" / "node" / "node_modules" / "@modelcontextprotocol" /
                       "server-everything" / "dist" / "index.js";
    REQUIRE_MESSAGE(std::filesystem::exists(entry),
                    "install the npm test peers: npm install --prefix tests/node");
    const std::string params = R"({"command":"node","args":[")" + entry.string() + R"(","stdio"]})";
    return "--server " + shell_quote("everything=" + params);
}

const char* two_calls =
    "from mcptools.everything import get_sum, echo\n"
    "print(get_sum.run(get_sum.Params(a=2, b=3)))\n"
    "print(echo.run(echo.Params(message='hi')))";

// `ipybox run` of the two calls in `workspace` with server-everything and `flags`.
command_result run_two_calls(const std::filesystem::path& workspace, const std::string& flags,
                             const std::string& input = "") {
    return run_ipybox("run --workspace " + shell_quote(workspace.string()) + " " +
                          everything_server() + " " + flags + " -c " + shell_quote(two_calls),
                      input);
}

}  // namespace

TEST_SUITE("cli.run.approvals") {
    TEST_CASE("quickstart: generate, approve the first call on the terminal, reject the second") {
        const auto workspace = fresh_directory("cli-quickstart");
        const auto r = run_two_calls(workspace, "--generate --approve ask", "y\nn\n");
        CHECK(std::filesystem::exists(workspace / "mcptools" / "everything" / "get_sum.py"));
        CHECK(r.err.find("ipybox: generated mcptools/everything/") != std::string::npos);
        CHECK(r.err.find("Approve everything.get-sum(a=2, b=3)? [Y/n] ") != std::string::npos);
        CHECK(r.err.find("Approve everything.echo(message=\"hi\")? [Y/n] ") != std::string::npos);
        CHECK(r.out == "The sum of 2 and 3 is 5.\n");
        CHECK(r.err.find("ApprovalRejectedError: Approval request for everything.echo rejected") !=
              std::string::npos);
        CHECK(r.exit_code == 1);
    }

    TEST_CASE("--generate creates a missing workspace, as a run without it does") {
        const auto workspace = fresh_directory("cli-generate-new") / "not" / "yet";
        REQUIRE_FALSE(std::filesystem::exists(workspace));
        const auto r = run_two_calls(workspace, "--generate --approve all");
        CHECK_MESSAGE(r.exit_code == 0, r.err);
        CHECK(std::filesystem::exists(workspace / "mcptools" / "everything" / "get_sum.py"));
        CHECK(r.out == "The sum of 2 and 3 is 5.\nEcho: hi\n");
    }

    TEST_CASE("--approve all runs every call, --approve none rejects the first") {
        const auto workspace = fresh_directory("cli-approve-all");
        auto r = run_two_calls(workspace, "--generate --approve all");
        CHECK(r.exit_code == 0);
        CHECK(r.out == "The sum of 2 and 3 is 5.\nEcho: hi\n");
        CHECK(r.err.find("[Y/n]") == std::string::npos);

        r = run_two_calls(workspace, "--approve none");
        CHECK(r.exit_code == 1);
        CHECK(r.out.empty());
        CHECK(r.err.find("Approval request for everything.get-sum rejected") != std::string::npos);
    }

    TEST_CASE("end of input at a prompt counts as no") {
        const auto workspace = fresh_directory("cli-approve-eof");
        const auto r = run_two_calls(workspace, "--generate --approve ask", "");
        CHECK(r.exit_code == 1);
        CHECK(r.err.find("Approval request for everything.get-sum rejected") != std::string::npos);
    }

    TEST_CASE("--approve-shell-commands asks before !cmd and %%bash, showing what will run") {
        const auto workspace = fresh_directory("cli-shell");
        const auto r = run_ipybox("run --workspace " + shell_quote(workspace.string()) +
                                      " --approve ask --approve-shell-commands -c " +
                                      shell_quote("name = 'ipybox'\n!echo hello {name}") + " -c " +
                                      shell_quote("%%bash\necho from bash") + " -c " +
                                      shell_quote("!touch marker"),
                                  "y\n\nn\n");
        CHECK(r.err.find("Approve shell command `echo hello ipybox`? [Y/n] ") != std::string::npos);
        CHECK(r.err.find("Approve a cell run by `bash`:\necho from bash\n[Y/n] ") !=
              std::string::npos);
        CHECK(r.err.find("Approve shell command `touch marker`? [Y/n] ") != std::string::npos);
        CHECK(r.out.find("hello ipybox") != std::string::npos);
        CHECK(r.out.find("from bash") != std::string::npos);
        CHECK(r.err.find("Approval request for ipybox.shell rejected") != std::string::npos);
        CHECK_FALSE(std::filesystem::exists(workspace / "marker"));
        CHECK(r.exit_code == 1);
    }

    TEST_CASE("without --approve-shell-commands, shell commands do not ask") {
        const auto workspace = fresh_directory("cli-shell-off");
        const auto r = run_ipybox("run --workspace " + shell_quote(workspace.string()) +
                                      " --approve ask -c " + shell_quote("!echo free"),
                                  "n\n");
        CHECK(r.exit_code == 0);
        CHECK(r.err.find("[Y/n]") == std::string::npos);
        CHECK(r.out.find("free") != std::string::npos);
    }
}
