#pragma once
// Pure text helpers shared by the kernel and the protocol layers. No I/O, thread-safe.
// UTF-8 validation, repair and cutting are in utf8.hpp.
#include <string>
#include <string_view>

namespace ipybox::core {

// Removes ANSI escape sequences (CSI "ESC [ ... final", OSC "ESC ] ... BEL/ST", and two-byte
// escapes) so that tracebacks read cleanly outside a terminal.
std::string strip_ansi(std::string_view text);

}  // namespace ipybox::core
