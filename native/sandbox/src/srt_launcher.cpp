#include "ipybox/sandbox/srt_launcher.hpp"

#include <sys/stat.h>

#include <fstream>

#include "ipybox/process/executables.hpp"

namespace ipybox::sandbox {

std::string install_hint() {
    std::string hint = "install srt with `npm install -g @anthropic-ai/sandbox-runtime`";
#ifdef __linux__
    hint += " and its Linux dependencies with `apt-get install bubblewrap socat ripgrep`";
#endif
    return hint + ", or name srt with IPYBOX_SRT";
}

std::filesystem::path find_srt(const std::optional<std::filesystem::path>& explicit_path,
                               const process::environment_map& environment,
                               const std::vector<std::filesystem::path>& fallbacks,
                               const std::vector<std::filesystem::path>& untrusted_roots) {
    std::optional<std::filesystem::path> named = explicit_path;
    std::string source = "the given path";
    if (!named) {
        if (const auto it = environment.find("IPYBOX_SRT");
            it != environment.end() && !it->second.empty()) {
            named = it->second;
            source = "IPYBOX_SRT";
        }
    }
    const auto path_entry = environment.find("PATH");
    const auto path = process::path_outside(
        path_entry != environment.end() ? path_entry->second : std::string(), untrusted_roots);
    // srt runs on the host, outside the sandbox: one the kernel could have written is never run.
    const auto trusted = [&](std::filesystem::path found, const std::string& how) {
        if (process::lies_within(found, untrusted_roots)) {
            throw sandbox_unavailable("the sandbox runtime " + found.string() + " (" + how +
                                      ") lies in the workspace, which the sandboxed kernel can "
                                      "write; ipybox does not run it. " +
                                      install_hint());
        }
        return found;
    };
    if (named) {
        // A path is checked as it is; a bare name is looked up on PATH.
        if (auto found = process::find_executable(named->string(), path)) {
            return trusted(*found, source);
        }
        throw sandbox_unavailable("the sandbox runtime " + named->string() + " (" + source +
                                  ") is not an executable file; " + install_hint());
    }
    if (auto found = process::find_executable("srt", path)) return trusted(*found, "on PATH");
    for (const auto& candidate : fallbacks) {
        if (auto found = process::find_executable(candidate.string(), "")) {
            return trusted(*found, "installed with ipybox");
        }
    }
    throw sandbox_unavailable("the sandbox runtime `srt` is not on PATH; " + install_hint());
}

void write_settings(const std::filesystem::path& file, const nlohmann::json& settings) {
    {
        std::ofstream out(file, std::ios::trunc);
        out << settings.dump(2) << "\n";
        if (!out) throw std::runtime_error("cannot write the sandbox settings " + file.string());
    }
    ::chmod(file.c_str(), 0600);
}

std::vector<std::string> command_prefix(const std::filesystem::path& srt,
                                        const std::filesystem::path& settings_file) {
    return {srt.string(), "--settings", settings_file.string(), "--"};
}

}  // namespace ipybox::sandbox
