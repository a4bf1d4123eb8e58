#include "ipybox/workspace/secret_strength.hpp"

#include <algorithm>
#include <cmath>

#include "ipybox/core/redactor.hpp"

namespace ipybox::workspace {
namespace {

std::string sentence_for(const std::vector<std::string>& names) {
    std::string listed;
    std::string flags;
    for (const auto& name : names) {
        listed += (listed.empty() ? "${" : ", ${") + name + "}";
        flags += " --allow-guessable-secret " + name;
    }
    return "the value" + std::string(names.size() > 1 ? "s of " : " of ") + listed +
           (names.size() > 1 ? " are" : " is") +
           " too easy to guess to be filled into a server a sandboxed kernel can call: ipybox "
           "shows a filled value to the kernel only as its placeholder, and a kernel could try "
           "candidates through a tool that echoes them until one comes back as the placeholder. "
           "Use a longer, random value (about 10 or more mixed characters), or, if you accept "
           "that risk, start ipybox with" +
           flags;
}

}  // namespace

double guessing_bits(std::string_view value) {
    if (value.empty()) return 0;
    bool digit = false, lower = false, upper = false, other = false, high = false;
    for (const char c : value) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x80) {
            high = true;
        } else if (byte >= '0' && byte <= '9') {
            digit = true;
        } else if (byte >= 'a' && byte <= 'z') {
            lower = true;
        } else if (byte >= 'A' && byte <= 'Z') {
            upper = true;
        } else {
            other = true;
        }
    }
    // The redactor matches whatever the letter case (core/redactor.hpp), so a guess in lower
    // case finds a value in mixed case: letters count as 26, not 52.
    const double alphabet =
        (digit ? 10 : 0) + (lower || upper ? 26 : 0) + (other ? 33 : 0) + (high ? 128 : 0);
    const bool one_character =
        std::all_of(value.begin(), value.end(), [&](char c) { return c == value.front(); });
    const double length = one_character ? 1.0 : static_cast<double>(value.size());
    return length * std::log2(alphabet);
}

bool guessable(std::string_view value) {
    if (value.size() < core::redactor::min_value_length) return false;
    if (guessing_bits(value) < min_secret_bits) return true;
    const auto weak_piece = [](std::string_view piece) {
        return piece.size() >= core::redactor::min_piece_length &&
               guessing_bits(piece) < min_secret_bits;
    };
    if (const auto cut = value.find_first_of("#?"); cut != std::string_view::npos) {
        if (weak_piece(value.substr(0, cut))) return true;
    }
    if (value.find('\n') == std::string_view::npos) return false;
    for (std::size_t start = 0; start <= value.size();) {
        auto end = value.find('\n', start);
        if (end == std::string_view::npos) end = value.size();
        auto line = value.substr(start, end - start);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (weak_piece(line)) return true;
        start = end + 1;
    }
    return false;
}

guessable_secret_error::guessable_secret_error(std::vector<std::string> names)
    : std::runtime_error(sentence_for(names)), names_(std::move(names)) {}

}  // namespace ipybox::workspace
