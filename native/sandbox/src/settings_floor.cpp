#include "ipybox/sandbox/settings_floor.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

namespace ipybox::sandbox {
namespace {

using nlohmann::json;

const std::map<std::string, std::set<std::string>>& accepted_sections() {
    static const std::map<std::string, std::set<std::string>> sections = {
        {"network",
         {"allowedDomains", "deniedDomains", "deniedDomainReasons", "allowLocalBinding"}},
        {"filesystem", {"denyRead", "allowRead", "allowWrite", "denyWrite"}},
    };
    return sections;
}

// Why a setting that is not accepted is refused, for the message.
std::string reason_for(const std::string& setting) {
    static const std::set<std::string> programs = {"bwrapPath", "socatPath", "ripgrep", "seccomp",
                                                   "javaAgentJarPath"};
    if (programs.count(setting) != 0) {
        return "it names a program srt runs on the host, which could be one the sandboxed kernel "
               "wrote (put the program on PATH instead)";
    }
    return "it could loosen what ipybox's sandbox counts on";
}

[[noreturn]] void refuse(const std::string& setting, const std::string& why) {
    throw std::invalid_argument("the sandbox config may not set " + setting + ": " + why +
                                ". ipybox accepts network.allowedDomains, network.deniedDomains, "
                                "network.deniedDomainReasons, network.allowLocalBinding and "
                                "filesystem.denyRead, allowRead, allowWrite, denyWrite");
}

// The first protected path (unreadable, then unwritable) below `form`, or nullptr.
const std::filesystem::path* held_by(const std::filesystem::path& form,
                                     const protected_floor& floor) {
    for (const auto* list : {&floor.unreadable, &floor.unwritable}) {
        const auto found = std::find_if(list->begin(), list->end(),
                                        [&](const auto& path) { return within(path, form); });
        if (found != list->end()) return &*found;
    }
    return nullptr;
}

}  // namespace

bool within(const std::filesystem::path& path, const std::filesystem::path& folder) {
    auto inner = path.begin();
    for (auto outer = folder.begin(); outer != folder.end(); ++outer, ++inner) {
        if (outer->empty()) continue;  // a trailing separator
        if (inner == path.end() || *inner != *outer) return false;
    }
    return true;
}

void check_accepted_settings(const json& user) {
    if (!user.is_object()) return;  // srt_settings says what is wrong with its shape
    for (const auto& [section, value] : user.items()) {
        const auto known = accepted_sections().find(section);
        if (known == accepted_sections().end()) refuse(section, reason_for(section));
        if (!value.is_object()) continue;  // srt_settings names it
        for (const auto& [setting, ignored] : value.items()) {
            if (known->second.count(setting) == 0) {
                refuse(section + "." + setting, reason_for(setting));
            }
        }
    }
}

std::string floor_breach(const granted_path& grant, const protected_floor& floor) {
    const auto breach = [&](const std::filesystem::path& form, const std::string& what,
                            const std::filesystem::path& guarded) {
        return "the sandbox config's filesystem." + grant.list + " entry \"" + grant.entry +
               "\" (" + form.string() + ") " + what + " " + guarded.string() +
               ", which ipybox keeps " + (grant.list == "allowRead" ? "unreadable" : "unwritable") +
               " whatever a config says; remove it or name a narrower path";
    };
    const bool writing = grant.list == "allowWrite";
    for (const auto& form : grant.forms) {
        for (const auto& path : floor.unreadable) {
            if (within(form, path)) return breach(form, "opens", path);
            // A pattern may match the protected path itself.
            if (grant.glob && within(path, form)) return breach(form, "may match", path);
        }
        if (!writing) continue;
        for (const auto& path : floor.unwritable) {
            if (within(form, path)) return breach(form, "opens", path);
            if (grant.glob && within(path, form)) return breach(form, "may match", path);
        }
        const bool inside_writable =
            std::any_of(floor.writable.begin(), floor.writable.end(),
                        [&](const auto& folder) { return within(form, folder); });
        if (const auto* held = inside_writable ? nullptr : held_by(form, floor)) {
            return breach(form, "holds", *held);
        }
    }
    return {};
}

}  // namespace ipybox::sandbox
