// The code generator as a filter for the Python-driven fuzz tier: reads
// `{"server_name": ..., "tools": [...tools/list entries...]}` on stdin and writes the generated
// package under the directory given as the only argument. Prints one JSON line per module on
// stdout: {"tool", "module", "notes", "server_only"}. Exit status 1 when the generator throws.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "ipybox/codegen/generator.hpp"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: codegen_files <output dir> < tools.json\n";
        return 2;
    }
    try {
        const std::string text{std::istreambuf_iterator<char>(std::cin),
                               std::istreambuf_iterator<char>()};
        const auto input = nlohmann::json::parse(text);
        const auto package =
            ipybox::codegen::generate_package(input.at("server_name").get<std::string>(),
                                              ipybox::codegen::parse_tool_list(input.at("tools")));
        const fs::path root = argv[1];
        for (const auto& file : package.files) {
            const fs::path path = root / file.relative_path;
            fs::create_directories(path.parent_path());
            std::ofstream(path, std::ios::binary) << file.content;
        }
        for (const auto& module : package.modules) {
            const nlohmann::json line = {{"tool", module.tool_name},
                                         {"module", module.module_name},
                                         {"notes", module.notes},
                                         {"server_only", module.server_only}};
            std::cout << line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                      << "\n";
        }
    } catch (const std::exception& error) {
        std::cerr << "codegen_files: " << error.what() << "\n";
        return 1;
    }
    return 0;
}
