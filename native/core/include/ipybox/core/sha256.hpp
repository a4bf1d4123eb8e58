#pragma once
// SHA-256 (FIPS 180-4) for names that must stay the same across builds, standard libraries and
// machines (std::hash promises none of that), e.g. the file name of a workspace's server
// registry. Not for secrets or signatures (jupyter/signer.hpp signs). Pure, thread-safe.
#include <string>
#include <string_view>

namespace ipybox::core {

// The digest of `data` as 64 lowercase hexadecimal digits. Throws std::runtime_error if OpenSSL
// cannot compute it (only when its default provider is missing).
std::string sha256_hex(std::string_view data);

}  // namespace ipybox::core
