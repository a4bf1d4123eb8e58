#include "ipybox/core/sha256.hpp"

#include <openssl/evp.h>

#include <stdexcept>

namespace ipybox::core {

std::string sha256_hex(std::string_view data) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int length = 0;
    if (EVP_Digest(data.data(), data.size(), digest, &length, EVP_sha256(), nullptr) != 1 ||
        length != 32) {
        throw std::runtime_error("OpenSSL: SHA-256 failed");
    }
    constexpr std::string_view digits = "0123456789abcdef";
    std::string hex;
    hex.reserve(2 * length);
    for (unsigned int i = 0; i < length; ++i) {
        hex += digits[digest[i] >> 4];
        hex += digits[digest[i] & 0x0F];
    }
    return hex;
}

}  // namespace ipybox::core
