#pragma once
// `.env` files: `KEY=VALUE` lines as python-dotenv and shells write them.
#include <filesystem>
#include <map>
#include <string>
#include <string_view>

namespace ipybox::workspace {

// Parses `.env` text. Supported: blank lines, `#` comment lines, an optional `export ` prefix,
// `KEY=VALUE` with KEY matching [A-Za-z_][A-Za-z0-9_]* and spaces around `=` ignored, unquoted
// values (trimmed, ` #...` trailing comments removed), 'single-quoted' values (literal, may span
// lines) and "double-quoted" values (\n, \r, \t, \", \\ and \$ escapes, may span lines), each
// optionally followed by a comment. A later assignment of a key wins. Malformed lines are skipped
// with a warning on the `workspace` logger that names the line number, never its content
// (values are secrets). No `${VAR}` expansion. Pure apart from logging; thread-safe.
std::map<std::string, std::string> parse_dotenv(std::string_view text);

// Reads and parses the file at `path` (bounded_read.hpp: a link, a FIFO, a device or a file over
// max_settings_file_bytes is refused with unreadable_file). A missing file gives an empty map;
// any other read error throws std::system_error naming the path.
std::map<std::string, std::string> load_dotenv(const std::filesystem::path& path);

}  // namespace ipybox::workspace
