#include "ipybox/core/byte_sizes.hpp"

#include <cctype>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace ipybox::core {

std::string describe_bytes(std::uint64_t bytes) {
    const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes);
    int unit = 0;
    while (value >= 1024 && unit < 4) {
        value /= 1024;
        ++unit;
    }
    std::ostringstream text;
    if (unit == 0 || std::fabs(value - std::round(value)) < 0.05) {
        text << static_cast<std::uint64_t>(std::llround(value));
    } else {
        text.precision(1);
        text << std::fixed << value;
    }
    text << ' ' << units[unit];
    return text.str();
}

std::uint64_t parse_bytes(const std::string& text) {
    std::size_t end = 0;
    double number = 0;
    try {
        number = std::stod(text, &end);
    } catch (const std::exception&) {
        throw std::invalid_argument("'" + text + "' is not a size (e.g. 2G, 512M, 1.5GiB)");
    }
    auto unit = text.substr(end);
    for (auto& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (unit.size() > 1 && unit.back() == 'B') unit.pop_back();
    if (unit.size() > 1 && unit.back() == 'I') unit.pop_back();
    double scale = 1;
    if (unit == "K")
        scale = 1024.0;
    else if (unit == "M")
        scale = 1024.0 * 1024;
    else if (unit == "G")
        scale = 1024.0 * 1024 * 1024;
    else if (unit == "T")
        scale = 1024.0 * 1024 * 1024 * 1024;
    else if (!unit.empty() && unit != "B") {
        throw std::invalid_argument("'" + text + "' has an unknown unit (use K, M, G or T)");
    }
    if (number <= 0 || !std::isfinite(number)) {
        throw std::invalid_argument("'" + text + "' must be a positive size");
    }
    return static_cast<std::uint64_t>(number * scale);
}

}  // namespace ipybox::core
