#pragma once
// The srt settings a sandboxed kernel runs under: the user's config (srt's own format, see
// sandbox-runtime's README: "network" {allowedDomains, deniedDomains, ...}, "filesystem"
// {denyRead, allowRead, allowWrite, denyWrite}, ...) with what ipybox needs added. Pure.
//
// What ipybox adds, whatever the user's config says:
//   - filesystem.allowWrite += `writable` (the workspace and the session's private directory,
//     which holds the ipc:// sockets, the tool server's socket and the kernel's temp files);
//   - filesystem.denyRead and denyWrite += `unreadable` (the workspace .env, host-side state);
//   - network.allowAllUnixSockets = true: the kernel's ZeroMQ channels (ipc://) and the tool
//     server are Unix sockets, which srt's seccomp filter would otherwise refuse to create.
// Everything else is the user's: with no config, no network at all (allowedDomains empty),
// reads everywhere except `unreadable`, writes only to `writable`.
#include <nlohmann/json.hpp>

#include <filesystem>
#include <vector>

namespace ipybox::sandbox {

struct sandbox_paths {
    std::vector<std::filesystem::path> writable;
    std::vector<std::filesystem::path> unreadable;
};

// Throws std::invalid_argument naming the field when `user` (null: no config) is not an object
// or a known list is not a list of strings.
nlohmann::json srt_settings(const nlohmann::json& user, const sandbox_paths& paths);

}  // namespace ipybox::sandbox
