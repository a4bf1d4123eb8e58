#include <doctest/doctest.h>

#include "fakes.hpp"
#include "ipybox/toolserver/routes.hpp"

using namespace ipybox::toolserver;
using ipybox::approval::verdict;
using ipybox::testing::error_of;
using ipybox::testing::fixed_gate;
using ipybox::testing::recording_invoker;
using ipybox::testing::recording_library;
using ipybox::testing::respond_now;
using nlohmann::json;

namespace {

json save_body(const std::string& category = "text", const std::string& name = "shout") {
    return {{"category", category},
            {"name", name},
            {"files", {{"__init__.py", "from .api import *\n"}, {"api.py", "A"}, {"impl.py", "I"}}},
            {"category_init", "# the category\n"},
            {"overwrite", false}};
}

http_response post(const json& body, const route_context& context) {
    return respond_now({"POST", "/gentools", "Bearer secret", body.dump()}, context);
}

}  // namespace

TEST_SUITE("toolserver.gentools") {
    TEST_CASE("an approved save reaches the library writer and answers the package folder") {
        recording_invoker invoker;
        fixed_gate gate(verdict::approved);
        recording_library library;
        const auto response = post(save_body(), {"secret", gate, invoker, false, &library});
        CHECK(response.status == 200);
        CHECK(json::parse(response.body)["package"] == "/library/c/n");
        REQUIRE(library.saves.size() == 1);
        CHECK(library.saves[0].category == "text");
        CHECK(library.saves[0].files.at("api.py") == "A");
        CHECK(library.saves[0].category_init == std::string("# the category\n"));
        // The approver is asked about a save and sees every file's text, the category's
        // __init__.py included: exactly what the writer then writes.
        const auto& asked = std::get<ipybox::approval::save_action>(gate.last);
        CHECK(asked.category == "text");
        CHECK(asked.name == "shout");
        CHECK(asked.files.at("impl.py") == "I");
        CHECK(asked.category_init == std::string("# the category\n"));
        CHECK(asked.files == library.saves[0].files);
    }

    TEST_CASE("a rejected save is never written") {
        recording_invoker invoker;
        fixed_gate gate(verdict::rejected);
        recording_library library;
        const auto response = post(save_body(), {"secret", gate, invoker, false, &library});
        CHECK(error_of(response)["type"] == "rejected");
        CHECK(library.saves.empty());
    }

    TEST_CASE("hostile category and action names are refused before approval or writing") {
        recording_invoker invoker;
        fixed_gate gate(verdict::approved);
        recording_library library;
        const route_context context{"secret", gate, invoker, false, &library};
        for (const auto* bad : {"", "..", "../evil", "a/b", "a\\\\b", "/etc", ".hidden", "_private",
                                "class", "None", "1st", "caf\xc3\xa9", "a b", "a.b", "x\n"}) {
            CAPTURE(bad);
            CHECK(post(save_body(bad, "shout"), context).status == 400);
            CHECK(post(save_body("text", bad), context).status == 400);
        }
        CHECK(post(save_body(std::string(65, 'a')), context).status == 400);
        CHECK(gate.asked == 0);
        CHECK(library.saves.empty());
    }

    TEST_CASE("only the three files of an action, each at most 64 KiB, are accepted") {
        recording_invoker invoker;
        fixed_gate gate(verdict::approved);
        recording_library library;
        const route_context context{"secret", gate, invoker, false, &library};
        auto extra = save_body();
        extra["files"]["../../.bashrc"] = "evil";
        CHECK(error_of(post(extra, context))["message"].get<std::string>().find(".bashrc") !=
              std::string::npos);
        auto missing = save_body();
        missing["files"].erase("impl.py");
        CHECK(post(missing, context).status == 400);
        auto large = save_body();
        large["files"]["api.py"] = std::string(max_gentool_file_bytes + 1, 'x');
        CHECK(post(large, context).status == 400);
        auto large_init = save_body();
        large_init["category_init"] = std::string(max_gentool_file_bytes + 1, 'x');
        CHECK(post(large_init, context).status == 400);
        auto not_text = save_body();
        not_text["files"]["api.py"] = 42;
        CHECK(post(not_text, context).status == 400);
        auto bad_flag = save_body();
        bad_flag["overwrite"] = "yes";
        CHECK(post(bad_flag, context).status == 400);
        CHECK(gate.asked == 0);
        CHECK(library.saves.empty());
        // The control: files of exactly the limit are asked about and saved.
        auto largest = save_body();
        largest["files"]["api.py"] = std::string(max_gentool_file_bytes, 'x');
        largest["category_init"] = std::string(max_gentool_file_bytes, 'x');
        CHECK(post(largest, context).status == 200);
        CHECK(library.saves.size() == 1);
    }

    TEST_CASE("the writer's refusal reaches the kernel with its type") {
        recording_invoker invoker;
        fixed_gate gate(verdict::approved);
        recording_library library;
        library.answer = gentool_save_outcome::failure(error_type::exists, "api.py exists");
        const auto response = post(save_body(), {"secret", gate, invoker, false, &library});
        CHECK(error_of(response)["type"] == "exists");
        CHECK(error_of(response)["message"] == "api.py exists");
    }

    TEST_CASE("without a library writer the endpoint is off, and the token is still required") {
        recording_invoker invoker;
        fixed_gate gate(verdict::approved);
        recording_library library;
        CHECK(post(save_body(), {"secret", gate, invoker}).status == 404);
        const auto unauthorised =
            respond_now({"POST", "/gentools", "Bearer wrong!", save_body().dump()},
                        {"secret", gate, invoker, false, &library});
        CHECK(unauthorised.status == 401);
        CHECK(library.saves.empty());
        CHECK(gate.asked == 0);
    }
}
