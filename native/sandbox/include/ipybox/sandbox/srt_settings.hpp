#pragma once
// The srt settings a sandboxed kernel runs under: the user's config (srt's own format, see
// sandbox-runtime's README: "network" {allowedDomains, deniedDomains, ...}, "filesystem"
// {denyRead, allowRead, allowWrite, denyWrite}, ...) with what ipybox needs added. Pure.
//
// What ipybox adds, whatever the user's config says:
//   - filesystem.allowWrite += `writable` (the workspace and the kernel's private directory,
//     which holds its ipc:// sockets and its temp files);
//   - filesystem.denyRead += `unreadable` (the workspace .env, host-side state, /tmp with every
//     session's private directory, /run);
//   - filesystem.allowRead += `readable` (the kernel's own directory, the tool server's, the
//     workspace, the Python runtime: srt lets allowRead win over a broader denyRead, and a
//     narrower denyRead, such as .env, over that);
//   - filesystem.denyWrite += `unwritable` (.env; srt lets it win over allowWrite);
//   - linux: network.allowAllUnixSockets = true: the kernel's ZeroMQ channels (ipc://) and the
//     tool server are Unix sockets, which srt's seccomp filter would otherwise refuse to create
//     (it cannot tell one path from another);
//   - darwin: network.allowUnixSockets += `unix_sockets` and allowAllUnixSockets = false:
//     Seatbelt filters by path, and every other socket of the host stays out of reach. The
//     settings only bubblewrap reads (sandbox_platform.hpp) are left out.
// Everything else is the user's: with no config, no network at all (allowedDomains empty),
// reads everywhere except `unreadable`, writes only to `writable`.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <vector>

#include "ipybox/sandbox/sandbox_platform.hpp"

namespace ipybox::sandbox {

struct sandbox_paths {
    std::vector<std::filesystem::path> writable;
    std::vector<std::filesystem::path> unreadable;
    std::vector<std::filesystem::path> readable;    // exceptions inside `unreadable` folders
    std::vector<std::filesystem::path> unwritable;  // even inside `writable` ones (srt: wins)
    // Where the kernel binds and connects Unix sockets (its own folder, the tool server's
    // socket): darwin allows these only; linux allows every one and ignores the list.
    std::vector<std::filesystem::path> unix_sockets;
};

// Throws std::invalid_argument naming the field when `user` (null: no config) is not an object
// or a known list is not a list of strings.
nlohmann::json srt_settings(const nlohmann::json& user, const sandbox_paths& paths,
                            sandbox_platform platform = host_sandbox_platform());

}  // namespace ipybox::sandbox
