#include "kernel_sandboxing.hpp"

#include <algorithm>
#include <array>
#include <set>
#include <utility>

#include "ipybox/sandbox/protected_paths.hpp"
#include "ipybox/sandbox/settings_floor.hpp"
#include "ipybox/sandbox/srt_launcher.hpp"
#include "ipybox/sandbox/srt_settings.hpp"

namespace ipybox::app {
namespace {

bool strictly_inside(const std::filesystem::path& path, const std::filesystem::path& dir) {
    const auto relative = path.lexically_relative(dir);
    return !relative.empty() && relative != "." && *relative.begin() != "..";
}

bool is_folder(const std::filesystem::path& path) {
    std::error_code ignored;
    return std::filesystem::symlink_status(path, ignored).type() ==
           std::filesystem::file_type::directory;
}

// `path` as it is written and, where they differ, with its links resolved (a link the kernel
// made in the workspace can point a config's entry at anything).
std::vector<std::filesystem::path> forms_of(const std::filesystem::path& path) {
    std::vector<std::filesystem::path> forms{path.lexically_normal()};
    std::error_code failed;
    auto resolved = std::filesystem::weakly_canonical(path, failed);
    if (!failed && resolved != forms.front()) forms.push_back(std::move(resolved));
    return forms;
}

std::vector<std::filesystem::path> all_forms(const std::vector<std::filesystem::path>& paths) {
    std::vector<std::filesystem::path> forms;
    for (const auto& path : paths) {
        for (auto& form : forms_of(path)) forms.push_back(std::move(form));
    }
    return forms;
}

// The paths the user's config grants (filesystem.allowRead and allowWrite), resolved as srt
// would resolve them: `~` is the home directory, a relative path lies in the workspace (srt's
// working directory), a pattern counts from its base folder.
std::vector<sandbox::granted_path> grants_of(const nlohmann::json& settings,
                                             const kernel_sandbox_context& context) {
    std::vector<sandbox::granted_path> grants;
    const auto filesystem =
        settings.is_object() ? settings.value("filesystem", nlohmann::json()) : nlohmann::json();
    if (!filesystem.is_object()) return grants;
    for (const char* list : {"allowRead", "allowWrite"}) {
        const auto entries = filesystem.value(list, nlohmann::json::array());
        if (!entries.is_array()) continue;  // srt_settings names it
        for (const auto& entry : entries) {
            const bool literal = entry.is_object();
            const auto text =
                literal ? entry.value("path", std::string()) : entry.get<std::string>();
            std::string base = text;
            const bool glob = !literal && text.find_first_of("*?[{") != std::string::npos;
            if (glob) base = text.substr(0, text.rfind('/', text.find_first_of("*?[{")) + 1);
            std::filesystem::path path;
            if (base == "~" || base.rfind("~/", 0) == 0) {
                // Joined as text: "~//.ssh" is the home's .ssh, not "/.ssh".
                path = context.home.string() + "/" + base.substr(1);
            } else {
                path = context.workspace / base;  // an absolute base replaces the workspace
            }
            grants.push_back({list, text, forms_of(path), glob});
        }
    }
    return grants;
}

// What the host runs or reads as configuration later, outside the workspace, which no config
// may make writable (a kernel that could write there would get code run on the host): every
// folder on the host's PATH, the user's program folders and configuration, the shell's start-up
// files and the user library (gentools that every project's kernels import).
// The user's program folders, configuration and shell start-up files, by their place in the
// home directory; `folders` are made as folders where a placeholder must hold them.
constexpr std::array home_folders{".local/bin",   "bin",        ".cargo/bin", ".config",
                                  ".local/share", ".local/lib", ".emacs.d"};
constexpr std::array home_files{
    ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc",
    ".zshenv", ".zprofile",     ".zlogin",     ".gitconfig",   ".npmrc",   ".pypirc",
    ".netrc",  ".vimrc",        ".emacs",      ".tmux.conf",   ".inputrc", ".pam_environment"};

// What the host runs or reads of the user's: the home entries above and every folder on the
// host's PATH, each with whether it is a folder.
std::vector<std::pair<std::filesystem::path, bool>> host_programs_and_settings(
    const kernel_sandbox_context& context) {
    std::vector<std::pair<std::filesystem::path, bool>> paths;
    if (!context.home.empty()) {
        for (const char* name : home_folders) paths.emplace_back(context.home / name, true);
        for (const char* name : home_files) paths.emplace_back(context.home / name, false);
    }
    const auto path = context.wrapper_environment.find("PATH");
    if (path != context.wrapper_environment.end()) {
        std::size_t start = 0;
        while (start <= path->second.size()) {
            auto end = path->second.find(':', start);
            if (end == std::string::npos) end = path->second.size();
            const auto entry = path->second.substr(start, end - start);
            if (!entry.empty() && entry.front() == '/') paths.emplace_back(entry, true);
            start = end + 1;
        }
    }
    return paths;
}

std::vector<std::filesystem::path> host_write_floor(const kernel_sandbox_context& context) {
    std::vector<std::filesystem::path> paths;
    for (auto& [path, folder] : host_programs_and_settings(context)) paths.push_back(path);
    for (const auto& visible : context.visible) paths.push_back(visible);
    return paths;
}

// The host's programs and settings that lie in the workspace, where the kernel may write (a
// workspace that is the home directory holds ~/.local/bin, ~/.config and ~/.bashrc): kept
// unwritable like the protected workspace paths, and held by ipybox's placeholders where they
// do not exist (srt denies writes only to what exists). `folders`: those made as folders,
// relative to the workspace.
struct host_paths_inside {
    std::vector<std::filesystem::path> paths;
    std::set<std::filesystem::path> folders;
};

host_paths_inside host_paths_in_workspace(const kernel_sandbox_context& context) {
    host_paths_inside inside;
    for (const auto& [path, folder] : host_programs_and_settings(context)) {
        for (auto& form : forms_of(path)) {
            if (!strictly_inside(form, context.workspace)) continue;
            if (folder) inside.folders.insert(form.lexically_relative(context.workspace));
            inside.paths.push_back(std::move(form));
        }
    }
    return inside;
}

// Throws std::invalid_argument when the workspace is, or lies in, a folder of the host's
// programs or settings: the kernel would write where the host later runs or reads.
void refuse_workspace_in_host_paths(const kernel_sandbox_context& context) {
    for (const auto& [path, folder] : host_programs_and_settings(context)) {
        for (const auto& form : forms_of(path)) {
            if (context.workspace == form || strictly_inside(context.workspace, form)) {
                throw std::invalid_argument(
                    "the workspace " + context.workspace.string() + " lies in " + form.string() +
                    ", where the host keeps programs or settings it runs or reads: a sandboxed "
                    "kernel may not write there. Choose a project folder outside it.");
            }
        }
    }
}

// Throws std::invalid_argument when the user's config would open what `floor` protects.
void check_grants(const nlohmann::json& settings, const kernel_sandbox_context& context,
                  sandbox::protected_floor floor) {
    for (auto& path : all_forms(host_write_floor(context))) {
        floor.unwritable.push_back(std::move(path));
    }
    for (const auto& grant : grants_of(settings, context)) {
        if (auto breach = sandbox::floor_breach(grant, floor); !breach.empty()) {
            throw std::invalid_argument(breach);
        }
    }
}

// What every kernel of the executor is denied or shown, whichever its directory.
struct sandbox_rules {
    nlohmann::json settings;
    kernel_sandbox_context context;
    std::vector<std::filesystem::path> unreadable;
    std::vector<std::filesystem::path> readable;
    std::vector<std::filesystem::path> config_files;
};

sandbox_rules rules_of(const kernel_sandbox& sandbox, const kernel_sandbox_context& context) {
    sandbox::check_accepted_settings(sandbox.settings);
    refuse_workspace_in_host_paths(context);
    sandbox_rules rules{sandbox.settings, context, sandbox.unreadable, {}, sandbox.unwritable};
    const auto protections = sandbox::default_protections(
        context.home, context.workspace, context.state_directories, sandbox.unwritable, false);
    rules.unreadable.insert(rules.unreadable.end(), protections.unreadable.begin(),
                            protections.unreadable.end());
    rules.unreadable.push_back(context.workspace / ".env");
    for (const char* hidden : {"/tmp", "/run", "/var/run"}) rules.unreadable.emplace_back(hidden);
    // Only paths inside a hidden folder are read back in: an allowRead of "/" or "/usr" would
    // open /tmp again.
    auto candidates = context.visible;
    candidates.push_back(context.workspace);
    if (!context.user_site_packages.empty()) candidates.push_back(context.user_site_packages);
    for (const auto& path : candidates) {
        if (std::any_of(rules.unreadable.begin(), rules.unreadable.end(),
                        [&](const auto& dir) { return strictly_inside(path, dir); })) {
            rules.readable.push_back(path);
        }
    }
    // Refused at once, not only when the first kernel starts (paths_of checks again then).
    auto unwritable = sandbox::default_protections({}, context.workspace, {}, rules.config_files,
                                                   is_folder(context.workspace / ".claude"))
                          .unwritable;
    if (!context.user_site_packages.empty()) unwritable.push_back(context.user_site_packages);
    check_grants(rules.settings, context,
                 {all_forms(rules.unreadable), all_forms(unwritable), {context.workspace}});
    return rules;
}

// The scratch space of a kernel is its own: nothing it leaves there (an IPython startup script,
// say) reaches the kernel after it.
process::environment_map make_scratch(const std::filesystem::path& kernel_dir) {
    process::environment_map environment;
    for (const auto& [variable, name] :
         {std::pair{"TMPDIR", "tmp"}, std::pair{"IPYTHONDIR", "ipython"},
          std::pair{"MPLCONFIGDIR", "matplotlib"}}) {
        std::filesystem::create_directories(kernel_dir / name);
        environment[variable] = (kernel_dir / name).string();
    }
    return environment;
}

// bubblewrap denies writes only to what exists. What does not exist yet is held by ipybox's own
// placeholders, made before this kernel starts and kept until no sandboxed kernel of the
// workspace runs (placeholder_hold.hpp): srt's would go with the first kernel that ends. A
// missing .claude or .git becomes an empty folder, protected whole like an existing one; inside
// each, only the entries srt denies itself (sandbox::runtime_entries_inside) need to exist, or
// srt would try to make their mount points inside a read-only folder and fail to start. Nothing
// else is made there (an empty settings.json would not parse).
void hold_missing_paths(const sandbox_rules& rules) {
    const auto& context = rules.context;
    std::set<std::filesystem::path> directories;
    for (const auto& name : sandbox::workspace_configuration_directories()) {
        directories.insert(name);
    }
    if (context.placeholders) {
        context.placeholders->ensure(
            sandbox::default_protections({}, context.workspace, {}, rules.config_files,
                                         is_folder(context.workspace / ".claude"))
                .unwritable,
            directories);
    }
    auto host_paths = host_paths_in_workspace(context);
    if (context.placeholders && !host_paths.paths.empty()) {
        context.placeholders->ensure(host_paths.paths, host_paths.folders);
    }
    for (const auto& [folder, entries] : sandbox::runtime_entries_inside()) {
        if (!is_folder(context.workspace / folder)) continue;
        std::vector<std::filesystem::path> inside;
        for (const auto& entry : entries) inside.push_back(context.workspace / folder / entry);
        if (context.placeholders) {
            context.placeholders->ensure(inside, directories);
        } else {
            for (const auto& path : inside) {
                std::error_code ignored;
                if (directories.count(path.lexically_relative(context.workspace)) != 0) {
                    std::filesystem::create_directory(path, ignored);
                }
            }
        }
    }
}

// What exists is made before the paths are read: on linux placeholders for the protected paths
// that do not exist yet (on darwin Seatbelt denies a path by its name, and the workspace is left
// as it is), and the user site. See paths_of for why.
void prepare(const sandbox_rules& rules) {
    const auto& context = rules.context;
    if (context.platform == sandbox::sandbox_platform::linux) hold_missing_paths(rules);
    // srt on Linux denies writes only to what exists: the folder is made, if missing, before
    // each kernel starts (settings that widen allowWrite must not let a kernel create it).
    if (!context.user_site_packages.empty()) {
        std::error_code ignored;
        std::filesystem::create_directories(context.user_site_packages, ignored);
    }
}

// The paths of the sandbox of a kernel whose private directory is `kernel_dir`, as the
// filesystem is now. Reads, never writes.
sandbox::sandbox_paths paths_of(const sandbox_rules& rules,
                                const std::filesystem::path& kernel_dir) {
    const auto& context = rules.context;
    sandbox::sandbox_paths paths;
    paths.writable = {context.workspace, kernel_dir};
    // srt on Linux can hide only what exists when the kernel starts; a credential folder made
    // later is hidden from the next kernel on. Checked here, at each kernel's start. Seatbelt
    // denies by name what is not there yet: every path, as written and with its links resolved
    // (srt resolves only what exists, and Seatbelt compares resolved paths).
    const bool seatbelt = context.platform == sandbox::sandbox_platform::darwin;
    for (const auto& path : rules.unreadable) {
        std::error_code ignored;
        if (seatbelt) {
            for (auto& form : forms_of(path)) paths.unreadable.push_back(std::move(form));
        } else if (std::filesystem::symlink_status(path, ignored).type() !=
                   std::filesystem::file_type::not_found) {
            paths.unreadable.push_back(path);
        }
    }
    paths.readable = rules.readable;
    paths.readable.push_back(kernel_dir);
    paths.unwritable = sandbox::default_protections({}, context.workspace, {}, rules.config_files,
                                                    is_folder(context.workspace / ".claude"))
                           .unwritable;
    // Repositories nested in the workspace, as they are when this kernel starts: protected
    // whole like the workspace's own .git (srt keeps only their hooks and config).
    for (auto& entry : sandbox::nested_git_entries(context.workspace)) {
        paths.unwritable.push_back(std::move(entry));
    }
    if (!context.user_site_packages.empty() &&
        (seatbelt || is_folder(context.user_site_packages))) {
        paths.unwritable.push_back(context.user_site_packages);
    }
    for (auto& path : host_paths_in_workspace(context).paths) {
        paths.unwritable.push_back(std::move(path));
    }
    // srt keeps its own scratch folder writable whatever is hidden around it; it is shared by
    // every srt sandbox on the host, so a kernel could leave things there for others.
    paths.unwritable.emplace_back(seatbelt ? "/private/tmp/claude" : "/tmp/claude");
    if (seatbelt) {
        paths.unwritable = all_forms(paths.unwritable);
        paths.unix_sockets = {kernel_dir};
        paths.unix_sockets.insert(paths.unix_sockets.end(), context.unix_sockets.begin(),
                                  context.unix_sockets.end());
    }
    // Checked at each start, as the filesystem is now: a grant that was harmless when ipybox
    // started may lead elsewhere through a link the last kernel made.
    check_grants(rules.settings, context,
                 {all_forms(rules.unreadable), all_forms(paths.unwritable), paths.writable});
    return paths;
}

}  // namespace

std::function<kernel::kernel_wrapping(const std::filesystem::path&)> srt_kernel_wrapper(
    const kernel_sandbox& sandbox, const kernel_sandbox_context& context) {
    return [rules = rules_of(sandbox, context)](const std::filesystem::path& kernel_dir) {
        kernel::kernel_wrapping wrapping;
        wrapping.environment = make_scratch(kernel_dir);
        prepare(rules);
        const auto file =
            rules.context.settings_directory / (kernel_dir.filename().string() + ".json");
        sandbox::write_settings(file,
                                sandbox::srt_settings(rules.settings, paths_of(rules, kernel_dir),
                                                      rules.context.platform));
        wrapping.command_prefix = sandbox::command_prefix(rules.context.srt, file);
        wrapping.wrapper_environment = rules.context.wrapper_environment;
        return wrapping;
    };
}

std::function<std::string(const std::filesystem::path&)> srt_kernel_settings(
    const kernel_sandbox& sandbox, const kernel_sandbox_context& context) {
    return [rules = rules_of(sandbox, context)](const std::filesystem::path& kernel_dir) {
        return sandbox::srt_settings(rules.settings, paths_of(rules, kernel_dir),
                                     rules.context.platform)
            .dump();
    };
}

std::function<process::environment_map(const std::filesystem::path&)> sandbox_scratch() {
    return make_scratch;
}

}  // namespace ipybox::app
