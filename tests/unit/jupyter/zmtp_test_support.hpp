#pragma once
// What the ZMTP tests build their byte streams from: a command frame, and how many random cases
// a randomized test runs (IPYBOX_FUZZ_ITERATIONS for a long run, else the fixed count CI runs).
#include <cstdlib>
#include <string>
#include <string_view>

#include "detail/zmtp.hpp"

namespace ipybox::testing {

// A command frame with `name` and `data`.
inline std::string zmtp_command(std::string_view name, std::string_view data) {
    std::string body(1, static_cast<char>(name.size()));
    body.append(name);
    body.append(data);
    std::string frame;
    jupyter::detail::zmtp_append_frame(frame, jupyter::detail::zmtp_flag_command, body);
    return frame;
}

inline std::size_t fuzz_iterations(std::size_t fallback) {
    const char* value = std::getenv("IPYBOX_FUZZ_ITERATIONS");
    return value != nullptr ? std::strtoull(value, nullptr, 10) : fallback;
}

}  // namespace ipybox::testing
