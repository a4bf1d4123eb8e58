#include "ipybox/core/random.hpp"

#include <sys/random.h>
#include <sys/types.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <system_error>
#include <vector>

namespace ipybox::core {
namespace {

// getentropy(3): the kernel's random source on Linux (glibc 2.25) and on Darwin alike, at most
// 256 bytes a call.
void fill_random(unsigned char* out, std::size_t size) {
    constexpr std::size_t most = 256;
    for (std::size_t done = 0; done < size;) {
        const std::size_t step = size - done < most ? size - done : most;
        if (::getentropy(out + done, step) != 0) {
            throw std::system_error(errno, std::generic_category(), "getentropy");
        }
        done += step;
    }
}

constexpr std::array<char, 16> hex_digits = {'0', '1', '2', '3', '4', '5', '6', '7',
                                             '8', '9', 'a', 'b', 'c', 'd', 'e', 'f'};

std::string to_hex(const unsigned char* data, std::size_t size) {
    std::string out;
    out.reserve(size * 2);
    for (std::size_t i = 0; i < size; ++i) {
        out.push_back(hex_digits[data[i] >> 4]);
        out.push_back(hex_digits[data[i] & 0x0f]);
    }
    return out;
}

}  // namespace

std::string new_uuid() {
    std::array<unsigned char, 16> raw{};
    fill_random(raw.data(), raw.size());
    raw[6] = static_cast<unsigned char>((raw[6] & 0x0f) | 0x40);  // version 4
    raw[8] = static_cast<unsigned char>((raw[8] & 0x3f) | 0x80);  // RFC 4122 variant
    const std::string hex = to_hex(raw.data(), raw.size());
    return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
           hex.substr(16, 4) + "-" + hex.substr(20, 12);
}

std::string random_hex(std::size_t bytes) {
    std::vector<unsigned char> raw(bytes);
    fill_random(raw.data(), raw.size());
    return to_hex(raw.data(), raw.size());
}

}  // namespace ipybox::core
