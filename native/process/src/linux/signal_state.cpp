#include "ipybox/process/signal_state.hpp"

#include <cstdint>
#include <fstream>
#include <sstream>

#include "../pending_signals.hpp"

namespace ipybox::process {

std::string signal_trouble(int pid) {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    if (!status) return "it has exited";
    std::uint64_t pending = 0;
    char state = '?';
    for (std::string line; std::getline(status, line);) {
        const auto colon = line.find(':');
        if (colon == std::string::npos) continue;
        const auto name = line.substr(0, colon);
        std::istringstream value(line.substr(colon + 1));
        if (name == "State") {
            value >> state;
        } else if (name == "SigPnd" || name == "ShdPnd") {
            std::uint64_t mask = 0;
            value >> std::hex >> mask;
            pending |= mask;
        }
    }
    if (state == 'Z' || state == 'X' || state == 'x' || state == '?') return "it has exited";
    if (state == 'T' || state == 't') return "it was stopped by a signal";
    return detail::pending_signal_trouble(pending);
}

}  // namespace ipybox::process
