// What execute_ipython_cell returns for images: a bounded number listed and inlined whatever a
// cell displays, the rest counted with the full list saved; image files read without following
// a link planted in their place.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>

#include "cell_output.hpp"
#include "test_paths.hpp"

namespace fs = std::filesystem;
using namespace ipybox;

namespace {

std::string text_of(const mcp::session::call_tool_result& result) {
    return result.content.at(0).at("text").get<std::string>();
}

std::size_t image_blocks(const mcp::session::call_tool_result& result) {
    std::size_t count = 0;
    for (const auto& block : result.content) count += block.at("type") == "image" ? 1 : 0;
    return count;
}

void write(const fs::path& path, const std::string& bytes) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << bytes;
}

}  // namespace

TEST_SUITE("app.cell_output") {
    TEST_CASE("a cell that draws 10,000 images lists 20, counts the rest and saves their list") {
        const auto workspace = testing::fresh_directory("cell-output-images");
        code_execution_result result;
        for (int i = 0; i < 10000; ++i) {
            result.images.push_back(workspace / "images" / (std::to_string(100000 + i) + ".png"));
        }
        std::string saved;
        app::cell_output_options options;
        options.workspace = workspace;
        options.save_full_output = [&](const std::string& text) {
            saved = text;
            return workspace / ".ipybox" / "outputs" / "list.txt";
        };
        const auto answer = app::cell_result(result, options);
        const auto text = text_of(answer);
        CHECK(text.find("9980 more images left out of this result") != std::string::npos);
        CHECK(text.find((workspace / ".ipybox" / "outputs" / "list.txt").string()) !=
              std::string::npos);
        CHECK(text.find("100000.png") != std::string::npos);  // the first ones
        CHECK(text.find("109999.png") != std::string::npos);  // and the last ones
        CHECK(text.find("100010.png") == std::string::npos);
        CHECK(text.size() < 8000);
        CHECK(std::count(saved.begin(), saved.end(), '\n') == 10000);
        // Control: one line per image, as results listed them before the cap, is past 500 KB.
        std::size_t uncapped = 0;
        for (const auto& image : result.images) {
            uncapped += image.stem().string().size() + image.string().size() + 6;
        }
        CHECK(uncapped > 500000);
    }

    TEST_CASE("up to the cap every image is listed and inlined") {
        const auto workspace = testing::fresh_directory("cell-output-few");
        code_execution_result result;
        for (int i = 0; i < 20; ++i) {
            const auto image = workspace / "images" / (std::to_string(i) + ".png");
            write(image, "png bytes");
            result.images.push_back(image);
        }
        app::cell_output_options options;
        options.workspace = workspace;
        const auto answer = app::cell_result(result, options);
        CHECK(image_blocks(answer) == 20);
        CHECK(text_of(answer).find("left out") == std::string::npos);
    }

    TEST_CASE("an image swapped for a link or a FIFO is listed, never read") {
        const auto workspace = testing::fresh_directory("cell-output-planted");
        fs::create_directories(workspace / "images");
        fs::create_symlink("/dev/zero", workspace / "images" / "zero.png");
        REQUIRE(::mkfifo((workspace / "images" / "fifo.png").c_str(), 0600) == 0);
        write(workspace / "images" / "real.png", "png bytes");
        code_execution_result result;
        result.images = {workspace / "images" / "zero.png", workspace / "images" / "fifo.png",
                         workspace / "images" / "real.png"};
        app::cell_output_options options;
        options.workspace = workspace;
        const auto answer = app::cell_result(result, options);  // returns: nothing blocked
        CHECK(image_blocks(answer) == 1);
        CHECK(text_of(answer).find("2 of these images are not included") != std::string::npos);
        // Control: the link leads to a file that never ends.
        std::ifstream zero(workspace / "images" / "zero.png", std::ios::binary);
        std::string chunk(1 << 20, '\1');
        zero.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
        CHECK(zero.gcount() == static_cast<std::streamsize>(chunk.size()));
    }
}
