// An MCP tool result as kernel code gets it (native/app/executor/src/tool_result_content.hpp).
#include <doctest/doctest.h>

#include <filesystem>

#include "ipybox/core/base64.hpp"
#include "test_paths.hpp"
#include "tool_result_content.hpp"

using ipybox::app::max_saved_files;
using ipybox::app::tool_result_json;
using nlohmann::json;

namespace {

std::size_t files_in(const std::filesystem::path& folder) {
    std::size_t count = 0;
    for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(folder)) ++count;
    return count;
}

}  // namespace

TEST_CASE("every content type becomes an item, and binary content is saved with its MIME type") {
    const auto workspace = ipybox::testing::fresh_directory("tool-content");
    const auto png = ipybox::core::base64_encode("not really a png");
    ipybox::mcp::session::call_tool_result result;
    result.content = json::array({
        {{"type", "text"}, {"text", "hello"}},
        {{"type", "image"}, {"data", png}, {"mimeType", "image/png"}},
        {{"type", "audio"}, {"data", png}, {"mimeType", "audio/wav"}},
        {{"type", "resource"},
         {"resource", {{"uri", "file:///a.txt"}, {"mimeType", "text/plain"}, {"text", "inside"}}}},
        {{"type", "resource"}, {"resource", {{"uri", "file:///b.bin"}, {"blob", png}}}},
        {{"type", "resource_link"}, {"uri", "file:///c"}, {"name", "c"}, {"mimeType", "text/csv"}},
    });
    const auto converted = tool_result_json(result, workspace, workspace / "images");
    const auto& items = converted["content"];
    REQUIRE(items.size() == 6);
    CHECK(items[1]["mime_type"] == "image/png");
    CHECK(items[1]["path"].get<std::string>().ends_with(".png"));
    CHECK(items[2]["path"].get<std::string>().ends_with(".wav"));
    CHECK(items[3]["text"] == "inside");
    CHECK(items[3]["uri"] == "file:///a.txt");
    CHECK(items[4]["path"].get<std::string>().ends_with(".bin"));
    CHECK(items[5]["name"] == "c");
    CHECK(converted["images"].size() == 1);
    CHECK(converted["text"] == "hello\ninside\n[resource: file:///c]");
    // Kept apart from the kernel's plots, which go to images/ itself.
    CHECK(files_in(workspace / "images") == 1);
    CHECK(files_in(workspace / "images" / "outputs") == 3);
    CHECK(std::filesystem::path(items[1]["path"].get<std::string>()).parent_path() ==
          workspace / "images" / "outputs");
}

TEST_CASE("a result of many tiny blobs writes at most max_saved_files files, and says so") {
    const auto workspace = ipybox::testing::fresh_directory("tool-content-many");
    ipybox::mcp::session::call_tool_result result;
    const auto data = ipybox::core::base64_encode("x");
    for (std::size_t i = 0; i < max_saved_files + 50; ++i) {
        result.content.push_back({{"type", "image"}, {"data", data}, {"mimeType", "image/png"}});
    }
    const auto converted = tool_result_json(result, workspace, workspace / "images");
    CHECK(files_in(workspace / "images" / "outputs") == max_saved_files);
    CHECK(converted["content"].size() == max_saved_files + 50);  // every item is still there
    CHECK(converted["content"].back()["path"].is_null());
    CHECK(converted["text"].get<std::string>().find("50 more binary items not saved") !=
          std::string::npos);
}
