#include "kernel_sandboxing.hpp"

#include <algorithm>
#include <utility>

#include "ipybox/sandbox/srt_launcher.hpp"
#include "ipybox/sandbox/srt_settings.hpp"

namespace ipybox::app {
namespace {

bool strictly_inside(const std::filesystem::path& path, const std::filesystem::path& dir) {
    const auto relative = path.lexically_relative(dir);
    return !relative.empty() && relative != "." && *relative.begin() != "..";
}

}  // namespace

std::function<kernel::kernel_wrapping(const std::filesystem::path&)> srt_kernel_wrapper(
    const kernel_sandbox& sandbox, const kernel_sandbox_context& context) {
    auto unreadable = sandbox.unreadable;
    unreadable.push_back(context.workspace / ".env");
    for (const char* hidden : {"/tmp", "/run", "/var/run"}) {
        if (std::filesystem::exists(hidden)) unreadable.emplace_back(hidden);
    }
    // Only paths inside a hidden folder are read back in: an allowRead of "/" or "/usr" would
    // open /tmp again.
    std::vector<std::filesystem::path> readable;
    auto candidates = context.visible;
    candidates.push_back(context.workspace);
    for (const auto& path : candidates) {
        if (std::any_of(unreadable.begin(), unreadable.end(),
                        [&](const auto& dir) { return strictly_inside(path, dir); })) {
            readable.push_back(path);
        }
    }
    return [settings = sandbox.settings, context, unreadable = std::move(unreadable),
            readable = std::move(readable)](const std::filesystem::path& kernel_dir) {
        // The kernel's scratch space is its own: nothing it leaves there (an IPython startup
        // script, say) reaches the kernel after it.
        kernel::kernel_wrapping wrapping;
        for (const auto& [variable, name] :
             {std::pair{"TMPDIR", "tmp"}, std::pair{"IPYTHONDIR", "ipython"},
              std::pair{"MPLCONFIGDIR", "matplotlib"}}) {
            std::filesystem::create_directories(kernel_dir / name);
            wrapping.environment[variable] = (kernel_dir / name).string();
        }
        sandbox::sandbox_paths paths;
        paths.writable = {context.workspace, kernel_dir};
        paths.unreadable = unreadable;
        paths.readable = readable;
        paths.readable.push_back(kernel_dir);
        paths.unwritable = {context.workspace / ".env"};
        const auto file = context.settings_directory / (kernel_dir.filename().string() + ".json");
        sandbox::write_settings(file, sandbox::srt_settings(settings, paths));
        wrapping.command_prefix = sandbox::command_prefix(context.srt, file);
        return wrapping;
    };
}

}  // namespace ipybox::app
