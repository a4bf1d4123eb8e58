#include "ipybox/core/clipping.hpp"

#include "ipybox/core/utf8.hpp"

namespace ipybox::core {

std::string omitted_bytes_marker(std::size_t bytes) {
    return "\n[... " + std::to_string(bytes) + " bytes of output omitted ...]\n";
}

std::string clip_characters(std::string_view text, std::size_t head, std::size_t tail,
                            const std::function<std::string(std::size_t omitted)>& marker) {
    // Counting, not a table of offsets: the text may be megabytes long.
    const std::size_t length = count_code_points(text);
    if (length <= head + tail) return std::string(text);
    const std::size_t omitted = length - head - tail;
    std::string out(text.substr(0, code_point_offset(text, head)));
    out += marker(omitted);
    out += text.substr(code_point_offset(text, length - tail));
    return out;
}

}  // namespace ipybox::core
