#include "ipybox/jupyter/signer.hpp"

#include "ipybox/core/hmac.hpp"

namespace ipybox::jupyter {
namespace {

constexpr std::size_t hex_signature_size = 64;  // HMAC-SHA256 as hex

}  // namespace

signer::signer(std::string key) : key_(std::move(key)) {}

std::string signer::sign(const signed_parts& parts) const {
    if (key_.empty()) return {};
    return core::hmac_sha256_hex(key_, {parts[0], parts[1], parts[2], parts[3]});
}

bool signer::verify(std::string_view signature, const signed_parts& parts) const {
    if (key_.empty()) return true;
    if (signature.size() != hex_signature_size) return false;
    return core::equal_tags(signature, sign(parts));
}

}  // namespace ipybox::jupyter
