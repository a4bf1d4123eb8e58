#include "ipybox/sandbox/srt_launcher.hpp"

#include "ipybox/process/executables.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

namespace ipybox::sandbox {
namespace {

bool is_executable(const std::filesystem::path& path) {
    std::error_code ec;
    return std::filesystem::is_regular_file(path, ec) && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::string install_hint() {
    std::string hint = "install srt with `npm install -g @anthropic-ai/sandbox-runtime`";
#ifdef __linux__
    hint += " and its Linux dependencies with `apt-get install bubblewrap socat ripgrep`";
#endif
    return hint + ", or name srt with IPYBOX_SRT";
}

std::filesystem::path find_srt(const std::optional<std::filesystem::path>& explicit_path,
                               const process::environment_map& environment,
                               const std::vector<std::filesystem::path>& fallbacks) {
    std::optional<std::filesystem::path> named = explicit_path;
    std::string source = "the given path";
    if (!named) {
        if (const auto it = environment.find("IPYBOX_SRT"); it != environment.end() && !it->second.empty()) {
            named = it->second;
            source = "IPYBOX_SRT";
        }
    }
    if (named) {
        if (is_executable(*named)) return *named;
        throw sandbox_unavailable("the sandbox runtime " + named->string() + " (" + source +
                                  ") is not an executable file; " + install_hint());
    }
    const auto path = environment.find("PATH");
    if (auto found = process::find_executable("srt", path != environment.end() ? path->second : "")) {
        return *found;
    }
    for (const auto& candidate : fallbacks) {
        if (is_executable(candidate)) return candidate;
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
