#include "ipybox/process/detail/descriptor_sweep.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../descriptor_action.hpp"

namespace ipybox::process::detail {
namespace {

// Numbers asked of poll(2) at once: at most the soft open-file limit, which bounds nfds.
constexpr int batch_size = 256;

long last_number() {
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_max != RLIM_INFINITY) {
        return static_cast<long>(limit.rlim_max);
    }
    const long open_max = ::sysconf(_SC_OPEN_MAX);
    return open_max > 0 ? open_max : 1 << 16;
}

}  // namespace

void sweep_descriptors_from(int first, sweep_action action, bool /*use_fast_path*/) {
    const long last = last_number();
    pollfd batch[batch_size];
    for (long base = first; base < last; base += batch_size) {
        const int count = static_cast<int>(last - base < batch_size ? last - base : batch_size);
        for (int i = 0; i < count; ++i) batch[i] = pollfd{static_cast<int>(base + i), 0, 0};
        if (::poll(batch, static_cast<nfds_t>(count), 0) < 0) {
            for (int i = 0; i < count; ++i) act_on(batch[i].fd, action);  // one by one, then
            continue;
        }
        for (int i = 0; i < count; ++i) {
            if ((batch[i].revents & POLLNVAL) == 0) act_on(batch[i].fd, action);
        }
    }
}

}  // namespace ipybox::process::detail
