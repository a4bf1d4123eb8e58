#pragma once
// The client side of the stdio transport: spawns an MCP server as a child process and speaks
// newline-delimited JSON over its stdin/stdout.
//
// - Environment: `inherited` (by default the allowlisted part of our own environment, see
//   process::default_allowlist; values that look like exported bash functions are skipped), then
//   `env` on top. Nothing else leaks.
// - The command is looked up on the PATH of that environment; cwd defaults to ours.
// - The child leads its own process group; shutdown signals go to the group (npx, sh -c ...).
//   Descriptors other than stdio are not inherited; SIGPIPE and the signal mask are reset to their
//   defaults in the child.
// - stdout: JSON lines, decoded under core::decode_json's limits with max_line_bytes as the size
//   limit. Lines that are not JSON (banners, hot-reload noise) are logged and skipped, unless
//   they look like an answer (envelope_scan.hpp): an answer that cannot be read (invalid UTF-8,
//   too deep, longer than max_line_bytes) is handed on as a decode failure naming the reason, so
//   that its request fails at once; so is valid JSON that is not a JSON-RPC message. Bytes of a
//   line still arriving are reported as activity (transport.hpp).
// - stderr: forwarded line by line to the "mcp" logger at `stderr_level`, never to our stdout. The
//   last few lines are kept and quoted when the child dies unexpectedly.
// - close(): close the child's stdin, wait `stdin_close_grace`, SIGTERM, wait `terminate_grace`,
//   SIGKILL. The sequence completes on the io_context even if the caller drops the transport
//   (on_close is then not guaranteed); destroying the io_context mid-way kills the child.
// - Child death (or close) reports on_close once the child is reaped, with its exit status, after
//   reading what it wrote before dying. A child that closes its stdout is shut down as above.
// - Destroying a transport whose child still runs (without close()) kills the process group
//   with SIGKILL and reaps the child.
// - start() ignores SIGPIPE process-wide if it is at its default disposition: a dead child must
//   be a write error, not the death of ipybox.
// Thread-safety: see transport.hpp. All I/O runs on a strand of the given io_context.
#include <spdlog/common.h>

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ipybox/mcp/transport/line_framer.hpp"
#include "ipybox/mcp/transport/transport.hpp"

namespace ipybox::mcp::transport {

using environment_map = std::map<std::string, std::string>;

struct stdio_client_options {
    std::string command;  // a name looked up on PATH, or a path
    std::vector<std::string> args;
    environment_map env;  // added to the inherited allowlist, overriding it
    // What the child inherits before `env`; the caller filters it. nullopt: the allowlisted
    // variables of this process's own environment.
    std::optional<environment_map> inherited;
    std::optional<std::filesystem::path> cwd;
    std::string name;  // for logs and errors, e.g. the server's configured name; default: command
    std::size_t max_line_bytes = default_max_line_bytes;
    std::chrono::milliseconds stdin_close_grace = std::chrono::seconds(2);
    std::chrono::milliseconds terminate_grace = std::chrono::seconds(2);
    spdlog::level::level_enum stderr_level = spdlog::level::info;
};

// The child's environment for `options`: `inherited` (or the allowlisted part of our own
// environment), then `env` on top.
environment_map child_environment(const stdio_client_options& options);

// The child is spawned by start(), which throws transport_error when the command cannot be found
// or started (the message names the command and the PATH searched).
std::shared_ptr<transport> make_stdio_client_transport(boost::asio::io_context& io,
                                                       stdio_client_options options);

}  // namespace ipybox::mcp::transport
