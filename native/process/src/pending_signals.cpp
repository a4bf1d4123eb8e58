#include "pending_signals.hpp"

#include <csignal>
#include <sstream>

namespace ipybox::process::detail {

std::string pending_signal_trouble(std::uint64_t pending) {
    for (const int harmless : {SIGCHLD, SIGCONT, SIGURG, SIGWINCH}) {
        pending &= ~(std::uint64_t{1} << (harmless - 1));
    }
    if (pending == 0) return {};
    std::ostringstream text;
    text << "a signal is pending for it (mask 0x" << std::hex << pending << ")";
    return text.str();
}

}  // namespace ipybox::process::detail
