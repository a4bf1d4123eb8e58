#pragma once
// Identifiers and secrets from the operating system's random source (getrandom).
#include <cstddef>
#include <string>

namespace ipybox::core {

// A random UUID version 4 in canonical form, e.g. "3f0c...-....". Used for Jupyter msg_ids.
std::string new_uuid();

// `bytes` random bytes as lowercase hex (2 * bytes characters). Suitable for keys and tokens.
// Throws std::system_error if the random source fails.
std::string random_hex(std::size_t bytes);

}  // namespace ipybox::core
