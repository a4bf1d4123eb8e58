#pragma once
// The Jupyter wire format: a message as ZeroMQ multipart frames
//
//   [identities...] "<IDS|MSG>" signature header parent_header metadata content [buffers...]
//
// Pure byte-level code: no sockets, no threads; tested without a kernel.
#include <optional>
#include <string>
#include <vector>

#include "ipybox/core/json_decode.hpp"
#include "ipybox/jupyter/message.hpp"
#include "ipybox/jupyter/signer.hpp"

namespace ipybox::jupyter {

inline constexpr std::string_view delimiter = "<IDS|MSG>";

// Frames ready to send. JSON with invalid UTF-8 in strings is serialised with U+FFFD in place.
std::vector<std::string> encode(const message& msg, const signer& key);

enum class decode_error {
    none,
    missing_delimiter,  // no "<IDS|MSG>" frame
    too_few_frames,     // fewer than signature + 4 JSON frames after the delimiter
    bad_signature,      // wrong, empty or wrong-length signature
    invalid_json,       // a JSON frame does not parse, or header/content is not an object
};

struct decode_result {
    std::optional<message> msg;
    decode_error error = decode_error::none;
    std::string detail;  // human-readable reason when msg is empty
};

// Checks the signature before parsing any JSON, so unauthenticated bytes are never interpreted;
// then decodes each JSON frame with core::decode_json within `limits` (a frame over them is
// invalid_json, naming the limit).
decode_result decode(std::vector<std::string> frames, const signer& key,
                     const core::json_limits& limits = {});

const char* to_string(decode_error error);

}  // namespace ipybox::jupyter
