// The token file of --auth-token-file (bearer_tokens.hpp): its format, what is refused (never
// echoing a token), matching, and the file's permissions.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "ipybox/mcp/http_server/bearer_tokens.hpp"

using namespace ipybox::mcp::http_server;
namespace fs = std::filesystem;

namespace {

const std::string alice_token = "alice-0123456789abcdef0123456789abcdef";
const std::string bob_token = "bob-0123456789abcdef0123456789abcdef00";

std::string refusal_of(const std::string& text) {
    try {
        token_table::parse(text);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

struct temp_file {
    fs::path path =
        fs::temp_directory_path() / ("ipybox-tokens-" + std::to_string(::getpid()) + "-" +
                                     std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    explicit temp_file(const std::string& text, fs::perms mode) {
        std::ofstream(path) << text;
        fs::permissions(path, mode);
    }
    ~temp_file() { fs::remove(path); }
};

}  // namespace

TEST_CASE("token file: principals, limits, comments and blank lines") {
    const auto table = token_table::parse("# ipybox tokens\n\n" + alice_token +
                                          " alice max_kernels=4 max_concurrent_cells=2 "
                                          "memory=8G cpu_seconds=3600\n  " +
                                          bob_token + "\tbob\r\n");
    CHECK(table.size() == 2);
    const auto alice = table.authenticate("Bearer " + alice_token);
    REQUIRE(alice);
    CHECK(alice->name == "alice");
    CHECK(alice->limits.max_kernels == 4u);
    CHECK(alice->limits.max_concurrent_cells == 2u);
    CHECK(alice->limits.memory_bytes == 8ULL << 30);
    CHECK(alice->limits.cpu_seconds == 3600u);
    const auto bob = table.authenticate("Bearer " + bob_token);
    REQUIRE(bob);
    CHECK(bob->name == "bob");
    CHECK_FALSE(bob->limits.max_kernels);
    CHECK_FALSE(bob->limits.max_concurrent_cells);
    CHECK_FALSE(bob->limits.memory_bytes);
}

TEST_CASE("token file: each mistake is refused by line, never showing the token") {
    const std::string short_token = "short-token-of-31-characters-xx";
    REQUIRE(short_token.size() == 31);
    const struct {
        std::string text;
        std::string says;
    } cases[] = {
        {alice_token + "\n", "line 1: expected: TOKEN PRINCIPAL"},
        {"\n" + short_token + " alice\n", "line 2: the token must be 32 to 512"},
        {alice_token + " al/ice\n", "the principal must be"},
        {alice_token + " alice max_kernels=0\n", "max_kernels must be a positive integer"},
        {alice_token + " alice max_kernels=2x\n", "max_kernels must be a positive integer"},
        {alice_token + " alice max_memory=1\n", "unknown limit 'max_memory'"},
        {alice_token + " alice max_kernels=1 max_kernels=2\n", "max_kernels is given twice"},
        {alice_token + " alice memory=lots\n", "memory: 'lots' is not a size"},
        {alice_token + " alice memory=1G memory=2G\n", "memory is given twice"},
        {alice_token + " alice cpu_seconds=0\n", "cpu_seconds must be a positive integer"},
        {alice_token + " alice memory\n", "unknown limit 'memory'"},
        {alice_token + " alice\n" + alice_token + " bob\n", "line 2: this token is already given"},
        {alice_token + " alice\n" + bob_token + " alice\n", "principal alice is given twice"},
    };
    for (const auto& each : cases) {
        CAPTURE(each.text);
        const auto refusal = refusal_of(each.text);
        CHECK(refusal.find(each.says) != std::string::npos);
        CHECK(refusal.find(alice_token) == std::string::npos);
        CHECK(refusal.find(short_token) == std::string::npos);
    }
    CHECK(refusal_of(alice_token + " alice max_kernels=1\n") == "");  // the control
}

TEST_CASE("authenticate: only 'Bearer' and a whole, exact token") {
    const auto table = token_table::parse(alice_token + " alice\n");
    CHECK(table.authenticate("Bearer " + alice_token));
    CHECK_FALSE(table.authenticate("bearer " + alice_token));
    CHECK_FALSE(table.authenticate("Basic " + alice_token));
    CHECK_FALSE(table.authenticate(alice_token));
    CHECK_FALSE(table.authenticate("Bearer " + alice_token + "x"));
    CHECK_FALSE(table.authenticate("Bearer " + alice_token.substr(0, alice_token.size() - 1)));
    CHECK_FALSE(table.authenticate("Bearer "));
    CHECK_FALSE(table.authenticate(""));
    CHECK(equal_in_constant_time("abc", "abc"));
    CHECK_FALSE(equal_in_constant_time("abd", "abc"));
    CHECK_FALSE(equal_in_constant_time("ab", "abc"));
    CHECK_FALSE(equal_in_constant_time("abcd", "abc"));
}

TEST_CASE("read_token_file: refused when its group or others may read or write it") {
    const auto content = alice_token + " alice\n";
    for (const auto mode : {fs::perms::owner_read | fs::perms::group_read,
                            fs::perms::owner_read | fs::perms::others_read,
                            fs::perms::owner_all | fs::perms::group_write}) {
        temp_file open_file(content, mode);
        CHECK_THROWS_WITH_AS(read_token_file(open_file.path), doctest::Contains("chmod 600"),
                             std::runtime_error);
    }
    temp_file private_file(content, fs::perms::owner_read | fs::perms::owner_write);
    CHECK(read_token_file(private_file.path).size() == 1);  // the control
    temp_file empty_file("# nothing yet\n", fs::perms::owner_read | fs::perms::owner_write);
    CHECK_THROWS_WITH_AS(read_token_file(empty_file.path), doctest::Contains("holds no token"),
                         std::invalid_argument);
    CHECK_THROWS_AS(read_token_file(private_file.path.string() + ".missing"), std::runtime_error);
}
