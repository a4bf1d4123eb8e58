#pragma once
// What a sandboxed kernel may see and write, as a kernel_launch::wrap function: each kernel gets
// its own srt settings file (in a directory no kernel can write) and its own scratch space. A
// kernel template gets one the same way, for its own directory; the kernels it forks share that
// sandbox and keep their scratch space in folders of that directory (sandbox_scratch).
//
// Each kernel may write the workspace and its own private directory (its ipc:// sockets, TMPDIR,
// IPYTHONDIR, MPLCONFIGDIR), nothing else; inside the workspace not the files a later session
// trusts (sandbox::default_protections: .claude, .mcp.json, .ipybox, sandbox-config.json, the
// configuration files ipybox was given, ...). It cannot read the workspace .env, ipybox's state,
// the usual credential locations, /tmp (every ipybox session keeps its kernels' keys and sockets
// there: the spare kernel's, and those of unsandboxed sessions, which would run code outside any
// sandbox) or /run (the host's service sockets); its own directory, the tool server's socket and
// `visible` paths inside those are read back in. The per-user site folder is read-only.
#include <filesystem>
#include <functional>
#include <memory>
#include <vector>

#include "ipybox/code_executor.hpp"
#include "ipybox/kernel/kernel_instance.hpp"
#include "ipybox/sandbox/placeholder_hold.hpp"
#include "ipybox/sandbox/sandbox_platform.hpp"

namespace ipybox::app {

struct kernel_sandbox_context {
    std::filesystem::path srt;                 // the srt executable
    std::filesystem::path settings_directory;  // private, outside every kernel's reach
    std::filesystem::path workspace;
    std::filesystem::path home;  // the host's HOME (credential locations); may be empty
    std::vector<std::filesystem::path> state_directories;  // ipybox's own state, unreadable
    // Read back in where they lie inside a hidden folder (the Python runtime, the tool
    // server's directory, the interpreter's prefix); elsewhere they are visible anyway.
    std::vector<std::filesystem::path> visible;
    // The per-user site folder (package_installer.hpp; may be empty): every kernel reads it
    // (read back in like `visible`) and none writes it, whatever the srt settings allow: what a
    // kernel left there would run in the kernels of every other project. pip fills it on the host.
    std::filesystem::path user_site_packages;
    // Placeholders for the protected paths that do not exist (linux; unused on darwin, where
    // Seatbelt denies a path by name and needs none). Shared by every kernel of the executor.
    std::shared_ptr<sandbox::placeholder_hold> placeholders;
    // The back end the settings are written for (sandbox_platform.hpp). On darwin nothing is
    // made in the workspace, and what must stay unreadable is denied whether or not it exists.
    sandbox::sandbox_platform platform = sandbox::host_sandbox_platform();
    // Unix sockets on the host the kernel connects to (the tool server's); with the kernel's
    // own directory, the only ones a darwin sandbox lets it reach.
    std::vector<std::filesystem::path> unix_sockets;
    // srt's own environment: it runs on the host, so nothing meant for the kernel may configure
    // it (kernel_wrapping::wrapper_environment).
    process::environment_map wrapper_environment;
};

// Throws nothing itself; the returned function throws std::runtime_error when it cannot write a
// settings file or create a directory, and sandbox::protection_unavailable when a protected path
// cannot be held (the kernel then fails to start).
std::function<kernel::kernel_wrapping(const std::filesystem::path& kernel_directory)>
srt_kernel_wrapper(const kernel_sandbox& sandbox, const kernel_sandbox_context& context);

// The settings srt_kernel_wrapper would write for `kernel_directory` now (as JSON text), made
// and written nothing: kernel_launch::sandbox_settings. What a kernel is denied depends on what
// exists when it starts (a nested .git, a credential folder, the user site); two calls return
// the same text exactly when a kernel would get the same sandbox. Throws what srt_settings
// throws (a config that is not one).
std::function<std::string(const std::filesystem::path& kernel_directory)> srt_kernel_settings(
    const kernel_sandbox& sandbox, const kernel_sandbox_context& context);

// Makes a sandboxed kernel's scratch folders (TMPDIR, IPYTHONDIR, MPLCONFIGDIR) in `directory`
// and returns the variables naming them: kernel_launch::sandbox_scratch, also what
// srt_kernel_wrapper adds to each kernel's environment. Throws std::filesystem::filesystem_error.
std::function<process::environment_map(const std::filesystem::path& directory)> sandbox_scratch();

}  // namespace ipybox::app
