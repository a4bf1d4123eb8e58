// .env parsing: the forms python-dotenv and shells write.
#include "ipybox/workspace/dotenv.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <test_paths.hpp>

using namespace ipybox::workspace;

TEST_CASE("parses KEY=VALUE lines, skipping blank and comment lines") {
    const auto values = parse_dotenv("# comment\n\nA=1\n  B = two words  \n#C=3\n");
    CHECK(values == std::map<std::string, std::string>{{"A", "1"}, {"B", "two words"}});
}

TEST_CASE("accepts an export prefix") {
    CHECK(parse_dotenv("export TOKEN=abc\nexport\tX=y\n") ==
          std::map<std::string, std::string>{{"TOKEN", "abc"}, {"X", "y"}});
    CHECK(parse_dotenv("exported=1\n") == std::map<std::string, std::string>{{"exported", "1"}});
}

TEST_CASE("strips trailing comments from unquoted values only after whitespace") {
    const auto values = parse_dotenv("A=value # comment\nB=a#b\nC=\n");
    CHECK(values.at("A") == "value");
    CHECK(values.at("B") == "a#b");
    CHECK(values.at("C") == "");
}

TEST_CASE("keeps single-quoted values literal, across lines") {
    const auto values = parse_dotenv("A='a \\n # b'\nB='line1\nline2' # c\n");
    CHECK(values.at("A") == "a \\n # b");
    CHECK(values.at("B") == "line1\nline2");
}

TEST_CASE("decodes escapes in double-quoted values, across lines") {
    const auto values =
        parse_dotenv("A=\"a\\nb\\t\\\"q\\\" \\\\ \\$x\"\nB=\"multi\nline\"\nC=\"#not comment\"\n");
    CHECK(values.at("A") == "a\nb\t\"q\" \\ $x");
    CHECK(values.at("B") == "multi\nline");
    CHECK(values.at("C") == "#not comment");
}

TEST_CASE("handles CRLF line endings") {
    CHECK(parse_dotenv("A=1\r\nB='x'\r\n") ==
          std::map<std::string, std::string>{{"A", "1"}, {"B", "x"}});
}

TEST_CASE("skips malformed lines and keeps parsing") {
    const auto values =
        parse_dotenv("not a pair\n1BAD=x\nA=\"unterminated\nB=2\nC='ok' junk\nD=4\n");
    CHECK(values == std::map<std::string, std::string>{{"B", "2"}, {"D", "4"}});
}

TEST_CASE("a later assignment of the same key wins") {
    CHECK(parse_dotenv("A=1\nA=2\n").at("A") == "2");
}

TEST_CASE("load_dotenv reads a file and treats a missing file as empty") {
    const auto dir = ipybox::testing::fresh_directory("dotenv");
    std::ofstream(dir / ".env") << "KEY=value\nexport OTHER='x y'\n";
    CHECK(load_dotenv(dir / ".env") ==
          std::map<std::string, std::string>{{"KEY", "value"}, {"OTHER", "x y"}});
    CHECK(load_dotenv(dir / "missing.env").empty());
}
