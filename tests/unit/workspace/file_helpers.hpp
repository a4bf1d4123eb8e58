#pragma once
// Small file helpers for the workspace tests: read a whole file, write one (making its folders),
// list a folder's entry names.
#include <filesystem>
#include <set>
#include <string>

namespace ipybox::testing {

std::string read_text(const std::filesystem::path& path);
void write_text(const std::filesystem::path& path, const std::string& content);
std::set<std::string> entry_names(const std::filesystem::path& dir);

}  // namespace ipybox::testing
