#pragma once
// Sizes as people write and read them: "2G", "512M", "1.5GiB" in, "2 GiB", "512 MiB" out
// (powers of 1024). Pure.
#include <cstdint>
#include <string>

namespace ipybox::core {

// "2 GiB", "512 MiB", "1.5 GiB".
std::string describe_bytes(std::uint64_t bytes);
// Parses "2G", "512M", "1.5GiB", "1000000" (bytes); throws std::invalid_argument naming `text`.
std::uint64_t parse_bytes(const std::string& text);

}  // namespace ipybox::core
