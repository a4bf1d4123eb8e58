// The host's view of the gentools library: saved actions across roots, the mcptools modules they
// import (read, never run), and pins that flag an action when a tool it calls changes.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <fstream>

#include "ipybox/gentools/gentools_library.hpp"
#include "test_paths.hpp"

namespace fs = std::filesystem;
using namespace ipybox::app;

namespace {

void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

fs::path action(const fs::path& root, const std::string& category, const std::string& name,
                const std::string& impl) {
    const auto directory = root / category / name;
    write(directory / "api.py", "\"\"\"An action.\"\"\"\n");
    write(directory / "impl.py", impl);
    return directory;
}

}  // namespace

TEST_CASE("reads the mcptools tools an action imports in every import form") {
    const auto found = mcptools_imports(
        "from mcptools.everything import echo, get_sum as add  # two\n"
        "from mcptools.fs import (\n    read_file,\n    write_file,\n)\n"
        "from mcptools.github.search_repos import Params\n"
        "import mcptools.web.fetch\n"
        "from mcptools import everything\n"
        "from mcptoolsx.other import nope\n");
    CHECK(found == std::set<std::string>{"everything.echo", "everything.get_sum", "fs.read_file",
                                         "fs.write_file", "github.search_repos", "web.fetch"});
}

TEST_CASE("scans every root, the first root winning a clash") {
    const auto dir = ipybox::testing::fresh_directory("gentools-scan");
    action(dir / "project", "web", "fetch", "from mcptools.fs import read_file\n");
    action(dir / "user", "web", "fetch", "from mcptools.fs import write_file\n");
    action(dir / "user", "web", "crawl", "import mcptools.web.get\n");
    write(dir / "user" / "web" / "no_api" / "impl.py", "");
    const auto actions = scan_actions({dir / "project", dir / "user"});
    REQUIRE(actions.size() == 2);
    CHECK(actions[0].module == "gentools.web.crawl");
    CHECK(actions[1].module == "gentools.web.fetch");
    CHECK(actions[1].directory == dir / "project" / "web" / "fetch");
    CHECK(actions[1].calls == std::set<std::string>{"fs.read_file"});
}

TEST_CASE("an action is flagged when a tool it was written against changes, until it is edited") {
    const auto dir = ipybox::testing::fresh_directory("gentools-pins");
    const auto mcptools = dir / "mcptools";
    write(mcptools / "everything" / "echo.py", "class Params: message: str\n");
    write(mcptools / "everything" / "add.py", "class Params: a: int\n");
    const auto shout =
        action(dir / "gentools", "text", "shout", "from mcptools.everything import echo\n");
    action(dir / "gentools", "math", "total", "from mcptools.everything import add\n");

    nlohmann::json pins;
    auto actions = scan_actions({dir / "gentools"});
    auto before = module_hashes(mcptools, "everything");
    CHECK(update_pins(pins, actions, before, before).empty());  // pinned, nothing changed

    write(mcptools / "everything" / "echo.py", "class Params: text: str\n");  // regenerated
    const auto after = module_hashes(mcptools, "everything");
    CHECK(after.at("everything.add") == before.at("everything.add"));
    CHECK(after.at("everything.echo") != before.at("everything.echo"));
    auto flags = update_pins(pins, actions, before, after);
    REQUIRE(flags.size() == 1);
    CHECK(flags["gentools.text.shout"]["tools"] == nlohmann::json::array({"everything.echo"}));
    CHECK(describe_flags(flags) == "  gentools.text.shout (calls everything.echo)\n");
    CHECK(update_pins(pins, actions, after, after).size() == 1);  // it stays flagged

    write(shout / "impl.py", "from mcptools.everything import echo  # uses text=\n");
    actions = scan_actions({dir / "gentools"});
    CHECK(update_pins(pins, actions, after, after).empty());  // the edit re-pinned it

    SUBCASE("an action saved before a regeneration is pinned to the modules it saw") {
        nlohmann::json fresh;
        action(dir / "gentools", "text", "whisper", "from mcptools.everything import echo\n");
        const auto renamed = after;
        auto changed = renamed;
        changed["everything.echo"] = "another";
        const auto flagged = update_pins(fresh, scan_actions({dir / "gentools"}), renamed, changed);
        CHECK(flagged.contains("gentools.text.whisper"));
        CHECK(flagged.contains("gentools.text.shout"));
        CHECK_FALSE(flagged.contains("gentools.math.total"));
    }
    SUBCASE("a tool that is gone counts as changed") {
        auto gone = after;
        gone.erase("everything.add");
        CHECK(update_pins(pins, actions, after, gone).contains("gentools.math.total"));
    }
}

TEST_CASE("a FIFO or a link to /dev/zero planted in gentools/ and mcptools/ is left out, unread") {
    const auto dir = ipybox::testing::fresh_directory("gentools-planted");
    const auto mcptools = dir / "mcptools";
    write(mcptools / "everything" / "echo.py", "class Params: message: str\n");
    REQUIRE(::mkfifo((mcptools / "everything" / "fifo.py").c_str(), 0600) == 0);
    fs::create_symlink("/dev/zero", mcptools / "everything" / "zero.py");
    const auto planted =
        action(dir / "gentools", "text", "shout", "from mcptools.everything import echo\n");
    fs::remove(planted / "impl.py");
    REQUIRE(::mkfifo((planted / "impl.py").c_str(), 0600) == 0);
    const auto linked = action(dir / "gentools", "text", "loud", "");
    fs::remove(linked / "impl.py");
    fs::create_symlink("/dev/zero", linked / "impl.py");
    fs::create_directory_symlink("/", dir / "gentools" / "root");  // a category that is a link

    // Returning at all is the point: the plain readers waited for a FIFO writer for ever, and
    // read /dev/zero until memory ran out.
    const auto actions = scan_actions({dir / "gentools"});
    REQUIRE(actions.size() == 2);
    CHECK(actions[0].module == "gentools.text.loud");
    CHECK(actions[0].calls.empty());
    CHECK(actions[1].module == "gentools.text.shout");
    CHECK(actions[1].calls.empty());  // impl.py, the FIFO, was not read
    const auto hashes = module_hashes(mcptools, "everything");
    CHECK(hashes.size() == 3);
    CHECK(hashes.at("everything.fifo") == hashes.at("everything.zero"));  // both read as empty
    // Control: what the scan read before, std::ifstream through the link, has no end.
    std::ifstream endless(linked / "impl.py", std::ios::binary);
    std::string chunk(1 << 20, '\1');
    endless.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    CHECK(endless.gcount() == static_cast<std::streamsize>(chunk.size()));
}

TEST_CASE("code written by hand into a generated folder is named, what ipybox wrote is not") {
    const auto mcptools = ipybox::testing::fresh_directory("hand-written") / "mcptools";
    const std::string generated =
        "\"\"\"A tool.\"\"\"\n\nTOOL_NAME = 'echo'\n\n\ndef run(params):\n";
    write(mcptools / "fs" / "__init__.py", "TOOLS = {}\n");
    write(mcptools / "fs" / "echo.py", generated);
    write(mcptools / "fs" / "gone.py", generated);  // a tool the server no longer has
    CHECK(hand_written_additions(mcptools, "fs").empty());
    CHECK(hand_written_additions(mcptools, "absent").empty());

    write(mcptools / "fs" / "echo.py", generated + "\n\ndef run_parsed(params):\n    pass\n");
    write(mcptools / "fs" / "helpers.py", "X = 1\n");
    CHECK(
        hand_written_additions(mcptools, "fs") ==
        std::vector<std::string>{"mcptools/fs/echo.py: def run_parsed", "mcptools/fs/helpers.py"});
}

TEST_CASE("a registration is recorded with placeholders, never a literal value of env or headers") {
    const auto record = registration_record(nlohmann::json::parse(R"({
        "command": "npx", "args": ["-y", "server"],
        "env": {"API_KEY": "${API_KEY}", "LITERAL": "s3cret", "NUMBER": 5},
        "headers": {"Authorization": "Bearer ${TOKEN}", "X-Api-Key": "abc"}})"));
    CHECK(record["args"] == nlohmann::json::parse(R"(["-y", "server"])"));
    CHECK(record["env"] ==
          nlohmann::json::parse(
              R"({"API_KEY": "${API_KEY}", "LITERAL": "${LITERAL}", "NUMBER": "${NUMBER}"})"));
    CHECK(record["headers"] ==
          nlohmann::json::parse(
              R"({"Authorization": "Bearer ${TOKEN}", "X-Api-Key": "${X_API_KEY}"})"));
    CHECK(record.dump().find("s3cret") == std::string::npos);
}

TEST_CASE("the workspace's path in a registration is recorded as ${IPYBOX_WORKSPACE}") {
    const auto record = registration_record(nlohmann::json::parse(R"({
        "command": "/home/u/proj1/.venv/bin/server",
        "args": ["/home/u/proj1", "/home/u/proj1/data", "--root=/home/u/proj1",
                 "/home/u/proj10", "/home/u/proj1x/y", "/usr/bin/node", "rel/home/u/proj1"],
        "cwd": "/home/u/proj1/sub"})"),
                                            "/home/u/proj1/");
    CHECK(record["command"] == "${IPYBOX_WORKSPACE}/.venv/bin/server");
    CHECK(record["args"] == nlohmann::json::parse(R"([
        "${IPYBOX_WORKSPACE}", "${IPYBOX_WORKSPACE}/data", "--root=${IPYBOX_WORKSPACE}",
        "/home/u/proj10", "/home/u/proj1x/y", "/usr/bin/node", "rel/home/u/proj1"])"));
    CHECK(record["cwd"] == "${IPYBOX_WORKSPACE}/sub");
    // Control: without a workspace nothing changes.
    CHECK(registration_record(nlohmann::json::parse(R"({"args": ["/home/u/proj1"]})"))["args"][0] ==
          "/home/u/proj1");
}

TEST_CASE("a 1 MiB identifier in kernel-written source is scanned, not a crash") {
    // std::regex, which these scans used, recursed per character and overflowed the stack here.
    const std::string name(1000 * 1000, 'a');
    CHECK(mcptools_imports("from mcptools.everything import " + name + "\n") ==
          std::set<std::string>{"everything." + name});
    CHECK(mcptools_imports("import mcptools.x." + name) == std::set<std::string>{"x." + name});
    CHECK(mcptools_imports("from mcptools." + name + " import y") ==
          std::set<std::string>{name + ".y"});
    const auto mcptools = ipybox::testing::fresh_directory("long-def") / "mcptools";
    write(mcptools / "fs" / "echo.py", "\nTOOL_NAME = 'echo'\ndef run(p):\n    pass\ndef " + name);
    const auto found = hand_written_additions(mcptools, "fs");
    REQUIRE(found.size() == 1);  // named, and cut to a line a person reads
    CHECK(found[0].rfind("mcptools/fs/echo.py: def aaaa", 0) == 0);
    CHECK(found[0].size() < 200);
}

TEST_CASE("a file name kernel code chose is shown escaped in what regeneration refuses") {
    const auto mcptools = ipybox::testing::fresh_directory("odd-name") / "mcptools";
    write(mcptools / "fs" / "x\nmcptools: forged.py, all clear\x1b[2J.py", "X = 1\n");
    const auto found = hand_written_additions(mcptools, "fs");
    REQUIRE(found.size() == 1);
    CHECK(found[0].find('\n') == std::string::npos);
    CHECK(found[0].find('\x1b') == std::string::npos);
    CHECK(found[0].rfind("mcptools/fs/x", 0) == 0);
}
