#include "../kernel_template.hpp"

#include "../fork_support.hpp"
#include "ipybox/core/private_directory.hpp"

// No kernel template off Linux (fork_support.hpp says why): start() refuses for good, so that
// template_holder starts every kernel cold, spares too. The rest is never reached.
namespace ipybox::kernel {

std::shared_ptr<kernel_template> kernel_template::start(const kernel_launch&, clock::time_point,
                                                        std::shared_ptr<const std::atomic<bool>>) {
    throw template_unavailable(detail::platform_fork_obstacle(), true);
}

kernel_template::~kernel_template() = default;

std::unique_ptr<process::child_process> kernel_template::fork(process::spawn_options,
                                                              const std::vector<std::string>&,
                                                              const nlohmann::json&,
                                                              clock::time_point) {
    throw template_unavailable(detail::platform_fork_obstacle(), true);
}

bool kernel_template::usable() const {
    return false;
}
bool kernel_template::outdated() const {
    return false;
}
std::string kernel_template::sandbox_changed() const {
    return {};
}

const std::filesystem::path& kernel_template::children_directory() const {
    static const std::filesystem::path none;
    return none;
}

int kernel_template::pid() const {
    return -1;
}

process::process_attributes kernel_template::child_attributes(
    const process::process_rlimits&) const {
    return {};
}

}  // namespace ipybox::kernel
