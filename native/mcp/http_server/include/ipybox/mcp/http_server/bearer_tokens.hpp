#pragma once
// Bearer tokens of `ipybox mcp --transport http --auth-token-file FILE`: who may use the endpoint,
// under which principal name and limits. Parsing and matching are pure; read_token_file() is the
// only I/O.
//
// The file, one token per line (blank lines and lines starting with '#' are ignored):
//   TOKEN PRINCIPAL [max_kernels=N] [max_concurrent_cells=N] [memory=SIZE] [cpu_seconds=N]
// TOKEN: 32 to 512 visible ASCII characters (e.g. `openssl rand -hex 32`); PRINCIPAL: 1 to 64
// of [A-Za-z0-9._-]. A token or principal named twice, an unknown or repeated key, a limit that
// is not a positive integer are errors naming the line (never the token). A principal's limits
// are absent when not given (the server's own caps apply).
//
// Thread-safe: a token_table is immutable once built.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ipybox::mcp::http_server {

struct principal_limits {
    std::optional<std::size_t> max_kernels;
    std::optional<std::size_t> max_concurrent_cells;
    // The memory limits and CPU-second limits of a principal's kernels, summed, at most
    // ("memory=8G", "cpu_seconds=3600"): each kernel is held to its own in its control group, and
    // a kernel whose limit would take the sum past these is not made.
    std::optional<std::uint64_t> memory_bytes;
    std::optional<std::uint64_t> cpu_seconds;
};

struct principal {
    std::string name;
    principal_limits limits;
};

class token_table {
  public:
    // Throws std::invalid_argument (a line number and what is wrong, never the token).
    static token_table parse(std::string_view text);

    // The principal whose token the Authorization header ("Bearer TOKEN") carries; nullopt for a
    // missing, malformed or unknown one. Every token is compared in full, in constant time for
    // its length, whichever matches.
    std::optional<principal> authenticate(std::string_view authorization_header) const;

    std::size_t size() const { return entries_.size(); }

  private:
    struct entry {
        std::string token;
        principal who;
    };
    std::vector<entry> entries_;
};

// Reads and parses FILE. Throws std::runtime_error when it cannot be read or is readable or
// writable by its group or others (the tokens are secrets: chmod 600), std::invalid_argument for
// its content (token_table::parse), and when it holds no token.
token_table read_token_file(const std::filesystem::path& file);

// True when `presented` equals `expected`, comparing every byte of `expected` whatever differs
// (the time depends on the lengths only).
bool equal_in_constant_time(std::string_view presented, std::string_view expected);

}  // namespace ipybox::mcp::http_server
