#include "../adopted_status.hpp"

#include <poll.h>

namespace ipybox::process::detail {

std::optional<exit_status> adopted_exit_status(int, int exit_fd) {
    pollfd item{exit_fd, POLLIN, 0};
    if (::poll(&item, 1, 0) <= 0 || (item.revents & POLLIN) == 0) return std::nullopt;
    return exit_status{};
}

}  // namespace ipybox::process::detail
