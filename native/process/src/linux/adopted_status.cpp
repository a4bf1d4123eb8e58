#include "../adopted_status.hpp"

#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

namespace ipybox::process::detail {

std::optional<exit_status> adopted_exit_status(int pid, int exit_fd) {
    pollfd item{exit_fd, POLLIN, 0};
    if (::poll(&item, 1, 0) <= 0 || (item.revents & POLLIN) == 0) return std::nullopt;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    exit_status status;
    const auto comm_end = text.rfind(')');
    if (comm_end != std::string::npos) {
        std::istringstream fields(text.substr(comm_end + 1));
        std::string field;
        int number = 2;
        long long code = -1;
        while (fields >> field) {
            if (++number == 52) code = std::atoll(field.c_str());
        }
        const bool still_ours = ::syscall(SYS_pidfd_send_signal, exit_fd, 0, nullptr, 0) == 0;
        if (code >= 0 && still_ours) status = exit_status::from_wait_status(static_cast<int>(code));
    }
    return status;
}

}  // namespace ipybox::process::detail
