// What create_kernel may ask for (app/mcp_server/src/kernel_request.hpp): a folder inside the
// server's workspace, limits no higher than the server's.
#include <doctest/doctest.h>

#include "kernel_request.hpp"
#include "server_tool_support.hpp"

using namespace ipybox;
using nlohmann::json;

namespace {

json arguments(json given) {
    json all{{"workspace", ""},
             {"sandbox", nullptr},
             {"memory", nullptr},
             {"cpu_seconds", nullptr},
             {"fast_reset", false}};
    for (const auto& [key, value] : given.items()) all[key] = value;
    return all;
}

process::resource_limits server_limits() {
    process::resource_limits limits;
    limits.memory_bytes = 2ULL << 30;
    limits.cpu_seconds = 600;
    return limits;
}

std::string refusal(json given) {
    try {
        app::read_kernel_request(arguments(std::move(given)), server_limits());
    } catch (const app::detail::argument_error& e) {
        return e.what();
    }
    return "accepted";
}

}  // namespace

TEST_SUITE("app.kernel_request") {
    TEST_CASE("a folder is plain names inside the workspace") {
        CHECK(app::read_kernel_request(arguments({{"workspace", "a/b//c/"}}), server_limits())
                  .workspace == std::filesystem::path("a/b/c"));
        CHECK(app::read_kernel_request(arguments({}), server_limits()).workspace.empty());
        for (const char* bad : {"../x", "a/../../b", "/etc", ".git", "a/.ipybox", "..", "."}) {
            INFO(bad);
            CHECK(refusal({{"workspace", bad}}).find("\"workspace\" must be") == 0);
        }
        CHECK(refusal({{"workspace", std::string(101, 'a')}}) != "accepted");
        std::string deep;
        for (int i = 0; i < 17; ++i) deep += "d/";
        CHECK(refusal({{"workspace", deep}}) != "accepted");
    }

    TEST_CASE("limits are the server's, lowered where asked, never raised") {
        const auto same = app::read_kernel_request(arguments({}), server_limits());
        CHECK(same.limits.memory_bytes == server_limits().memory_bytes);
        CHECK(!same.sandbox);
        const auto lower = app::read_kernel_request(
            arguments({{"memory", "512M"}, {"cpu_seconds", 30}, {"sandbox", true}}),
            server_limits());
        CHECK(lower.limits.memory_bytes == 512ULL << 20);
        CHECK(lower.limits.cpu_seconds == 30);
        CHECK(lower.sandbox == true);
        CHECK(!lower.fast_reset);
        CHECK(app::read_kernel_request(arguments({{"fast_reset", true}}), server_limits())
                  .fast_reset);
        CHECK(refusal({{"memory", "3G"}}).find("at most the server's limit, 2 GiB") !=
              std::string::npos);
        CHECK(refusal({{"memory", "lots"}}).find("must be a size") != std::string::npos);
        CHECK(refusal({{"cpu_seconds", 601}}).find("at most the server's limit, 600") !=
              std::string::npos);
    }
}
