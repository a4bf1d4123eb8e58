#include "ipybox/core/hmac.hpp"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <memory>
#include <stdexcept>

namespace ipybox::core {
namespace {

constexpr std::size_t digest_size = 32;

struct mac_deleter {
    void operator()(EVP_MAC* mac) const { EVP_MAC_free(mac); }
    void operator()(EVP_MAC_CTX* ctx) const { EVP_MAC_CTX_free(ctx); }
};

}  // namespace

std::string hmac_sha256_hex(std::string_view key, std::initializer_list<std::string_view> parts) {
    // EVP_MAC is the non-deprecated OpenSSL 3 interface; fetching per call costs a few
    // microseconds, negligible next to what is signed.
    std::unique_ptr<EVP_MAC, mac_deleter> mac(EVP_MAC_fetch(nullptr, "HMAC", nullptr));
    if (!mac) throw std::runtime_error("OpenSSL: HMAC is not available");
    std::unique_ptr<EVP_MAC_CTX, mac_deleter> ctx(EVP_MAC_CTX_new(mac.get()));
    char digest_name[] = "SHA256";
    const OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest_name, 0),
        OSSL_PARAM_construct_end()};
    if (!ctx || EVP_MAC_init(ctx.get(), reinterpret_cast<const unsigned char*>(key.data()),
                             key.size(), params) != 1) {
        throw std::runtime_error("OpenSSL: cannot initialise HMAC-SHA256");
    }
    for (const auto part : parts) {
        EVP_MAC_update(ctx.get(), reinterpret_cast<const unsigned char*>(part.data()), part.size());
    }
    unsigned char digest[digest_size];
    std::size_t length = 0;
    if (EVP_MAC_final(ctx.get(), digest, &length, sizeof digest) != 1 || length != digest_size) {
        throw std::runtime_error("OpenSSL: HMAC-SHA256 failed");
    }
    static constexpr char digits[] = "0123456789abcdef";
    std::string out(digest_size * 2, '0');
    for (std::size_t i = 0; i < digest_size; ++i) {
        out[2 * i] = digits[digest[i] >> 4];
        out[2 * i + 1] = digits[digest[i] & 0x0f];
    }
    return out;
}

bool equal_tags(std::string_view presented, std::string_view expected) {
    return presented.size() == expected.size() &&
           CRYPTO_memcmp(presented.data(), expected.data(), expected.size()) == 0;
}

}  // namespace ipybox::core
