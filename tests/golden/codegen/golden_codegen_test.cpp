// Pins the generated package of every case under tests/golden/codegen/ byte for byte.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <test_paths.hpp>

#include "ipybox/codegen/generator.hpp"

namespace fs = std::filesystem;
using namespace ipybox::codegen;

namespace {

std::string read_file(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream content;
    content << in.rdbuf();
    return content.str();
}

std::map<std::string, std::string> read_tree(const fs::path& root) {
    std::map<std::string, std::string> files;
    if (!fs::exists(root)) return files;
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
        if (!entry.is_regular_file() || entry.path().extension() != ".py") continue;
        files[fs::relative(entry.path(), root).generic_string()] = read_file(entry.path());
    }
    return files;
}

// The first line where the texts differ, for a failure message a reviewer can act on.
std::string first_difference(const std::string& expected, const std::string& actual) {
    std::istringstream e(expected);
    std::istringstream a(actual);
    std::string expected_line;
    std::string actual_line;
    for (int line = 1;; ++line) {
        const bool more_e = static_cast<bool>(std::getline(e, expected_line));
        const bool more_a = static_cast<bool>(std::getline(a, actual_line));
        if (!more_e && !more_a) return "texts differ only in line endings";
        if (!more_e || !more_a || expected_line != actual_line) {
            return "line " + std::to_string(line) +
                   "\n  expected: " + (more_e ? expected_line : "<end>") +
                   "\n  actual:   " + (more_a ? actual_line : "<end>");
        }
    }
}

void check_case(const std::string& name) {
    const fs::path dir = ipybox::testing::source_dir() / "tests/golden/codegen" / name;
    const auto input = nlohmann::json::parse(read_file(dir / "tools.json"));
    const auto package = generate_package(input.at("server_name").get<std::string>(),
                                          parse_tool_list(input.at("tools")));
    const fs::path expected_dir = dir / "expected";

    const char* update = std::getenv("IPYBOX_UPDATE_GOLDEN");
    if (update != nullptr && std::string(update) == "1") {
        fs::remove_all(expected_dir);
        for (const auto& file : package.files) {
            const fs::path path = expected_dir / file.relative_path;
            fs::create_directories(path.parent_path());
            std::ofstream(path, std::ios::binary) << file.content;
        }
        MESSAGE("rewrote " << expected_dir.string());
        return;
    }

    auto expected = read_tree(expected_dir);
    REQUIRE_MESSAGE(!expected.empty(), "no golden files in "
                                           << expected_dir.string()
                                           << " (run with IPYBOX_UPDATE_GOLDEN=1)");
    for (const auto& file : package.files) {
        const auto it = expected.find(file.relative_path);
        CHECK_MESSAGE(it != expected.end(), "unexpected generated file " << file.relative_path);
        if (it == expected.end()) continue;
        CHECK_MESSAGE(it->second == file.content,
                      file.relative_path << ": " << first_difference(it->second, file.content));
        expected.erase(it);
    }
    for (const auto& [path, content] : expected) {
        CHECK_MESSAGE(false, "golden file " << path << " is no longer generated");
    }
}

}  // namespace

TEST_CASE("golden: server-everything-like tools, including structured output") {
    check_case("everything");
}

TEST_CASE("golden: filesystem-like tools with arrays of objects and defaults") {
    check_case("filesystem");
}

TEST_CASE("golden: the kitchen-sink schema maps every common JSON Schema construct") {
    check_case("kitchen_sink");
}

TEST_CASE("golden: hostile strings everywhere stay escaped literals") {
    check_case("hostile");
}

TEST_CASE("golden: colliding, keyword and dunder names get unique sanitised identifiers") {
    check_case("names");
}

TEST_CASE("golden: empty, absent and non-object schemas give usable modules") {
    check_case("empty_schemas");
}

TEST_CASE("golden: $ref, $defs, definitions, allOf, anyOf and recursion") {
    check_case("refs");
}

TEST_CASE("golden: one tool per schema defect class of issue 12, each importable and exact") {
    check_case("schema_defects");
}

TEST_CASE("golden: one property per checked keyword, and keywords left to the server listed") {
    check_case("refusal");
}

TEST_CASE("golden: properties, nested models and enum members that collide once mangled") {
    check_case("collisions");
}

TEST_CASE("golden: one tool per class of invalid values the fuzz tier found Params accepting") {
    check_case("refusal_edges");
}

TEST_CASE("golden: hostile property-name sets the name tier found, shrunk (issue 36)") {
    check_case("name_sets");
}
