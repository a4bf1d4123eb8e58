#include "ignore_sigpipe.hpp"

#include <csignal>
#include <mutex>

namespace ipybox::mcp::transport {

void ignore_sigpipe_once() {
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction current {};
        if (::sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) {
            struct sigaction ignore {};
            ignore.sa_handler = SIG_IGN;
            ::sigaction(SIGPIPE, &ignore, nullptr);
        }
    });
}

}  // namespace ipybox::mcp::transport
