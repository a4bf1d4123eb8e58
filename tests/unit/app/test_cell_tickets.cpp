// The requestState of input-required results (app/mcp_server/src/cell_tickets.hpp): only what
// this process sealed opens, and only for the kernel, the call and the time it was made for.
#include <doctest/doctest.h>

#include "cell_tickets.hpp"

using namespace ipybox;
using nlohmann::json;

namespace {

const std::string key(64, 'k');

app::cell_ticket ticket(std::int64_t expires = 2000) {
    return {"kernel-a", "cell-1", app::arguments_digest({{"code", "!ls"}}), expires};
}

std::string refusal(const std::string& state, const std::string& kernel = "kernel-a",
                    const json& arguments = {{"code", "!ls"}}, std::int64_t now = 1000,
                    const std::string& opening_key = key) {
    try {
        app::open_ticket(opening_key, state, kernel, app::arguments_digest(arguments), now);
    } catch (const app::ticket_refused& e) {
        return e.what();
    }
    return "opened";
}

}  // namespace

TEST_SUITE("app.cell_tickets") {
    TEST_CASE("a sealed ticket opens for its kernel, call and time (the control)") {
        const auto state = app::seal_ticket(key, ticket());
        CHECK(refusal(state) == "opened");
        const auto opened =
            app::open_ticket(key, state, "kernel-a", app::arguments_digest({{"code", "!ls"}}), 1);
        CHECK(opened.cell == "cell-1");
        // kernel_id routes the call; it is not part of it.
        CHECK(refusal(state, "kernel-a", {{"code", "!ls"}, {"kernel_id", "abc"}}) == "opened");
    }

    TEST_CASE("any change to any character is refused as not ours") {
        const auto state = app::seal_ticket(key, ticket());
        for (std::size_t i = 0; i < state.size(); ++i) {
            auto altered = state;
            altered[i] = altered[i] == 'A' ? 'B' : 'A';
            INFO(i);
            CHECK(refusal(altered).find("not one ipybox made") != std::string::npos);
        }
        for (const char* junk : {"", "v1.", "v1..", "v1.e30=.", "garbage", "v2.e30=.00"}) {
            CHECK(refusal(junk).find("not one ipybox made") != std::string::npos);
        }
        CHECK(refusal(state + std::string(5000, 'x')).find("not one ipybox made") !=
              std::string::npos);
        // Sealed under another key (another process): not ours either.
        CHECK(refusal(state, "kernel-a", {{"code", "!ls"}}, 1000, std::string(64, 'q'))
                  .find("not one ipybox made") != std::string::npos);
    }

    TEST_CASE("a genuine ticket is refused for another kernel, another call, or late") {
        const auto state = app::seal_ticket(key, ticket(2000));
        CHECK(refusal(state, "kernel-b").find("another kernel") != std::string::npos);
        CHECK(refusal(state, "kernel-a", {{"code", "!rm -rf x"}}).find("another call") !=
              std::string::npos);
        CHECK(refusal(state, "kernel-a", {{"code", "!ls"}}, 2000).find("expired") !=
              std::string::npos);
    }
}
