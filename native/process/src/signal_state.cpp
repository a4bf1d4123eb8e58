#include "ipybox/process/signal_state.hpp"

#include <csignal>
#include <cstdint>
#include <fstream>
#include <sstream>

namespace ipybox::process {
namespace {

// The signals whose default action is to do nothing; a pending one is harmless.
std::uint64_t harmless_mask() {
    std::uint64_t mask = 0;
    for (const int signal : {SIGCHLD, SIGCONT, SIGURG, SIGWINCH}) {
        mask |= std::uint64_t{1} << (signal - 1);
    }
    return mask;
}

}  // namespace

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
    pending &= ~harmless_mask();
    if (pending != 0) {
        std::ostringstream text;
        text << "a signal is pending for it (mask 0x" << std::hex << pending << ")";
        return text.str();
    }
    return {};
}

}  // namespace ipybox::process
