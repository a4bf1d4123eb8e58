#include "ipybox/jupyter/wire.hpp"

#include <algorithm>

#include "ipybox/core/utf8.hpp"

namespace ipybox::jupyter {
namespace {

std::string dump(const json& value) {
    return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

// A kernel may send bytes that are not UTF-8 (Python encodes lone surrogates with
// "surrogateescape"); such a frame is parsed again with U+FFFD in their place instead of dropped.
json parse_lenient(const std::string& frame, const core::json_limits& limits) {
    try {
        return core::decode_json(frame, limits);
    } catch (const core::json_decode_error& e) {
        if (e.why() != core::json_decode_error::reason::invalid_utf8) throw;
        return core::decode_json(core::sanitize_utf8(frame), limits);
    }
}

}  // namespace

std::vector<std::string> encode(const message& msg, const signer& key) {
    std::vector<std::string> frames;
    frames.reserve(msg.identities.size() + 6 + msg.buffers.size());
    frames.insert(frames.end(), msg.identities.begin(), msg.identities.end());
    frames.emplace_back(delimiter);
    std::string header = dump(msg.header);
    std::string parent = dump(msg.parent_header);
    std::string metadata = dump(msg.metadata);
    std::string content = dump(msg.content);
    frames.push_back(key.sign({header, parent, metadata, content}));
    frames.push_back(std::move(header));
    frames.push_back(std::move(parent));
    frames.push_back(std::move(metadata));
    frames.push_back(std::move(content));
    frames.insert(frames.end(), msg.buffers.begin(), msg.buffers.end());
    return frames;
}

decode_result decode(std::vector<std::string> frames, const signer& key,
                     const core::json_limits& limits) {
    decode_result result;
    const auto delim = std::find(frames.begin(), frames.end(), delimiter);
    if (delim == frames.end()) {
        result.error = decode_error::missing_delimiter;
        result.detail = "no <IDS|MSG> delimiter among " + std::to_string(frames.size()) + " frames";
        return result;
    }
    const auto first = static_cast<std::size_t>(delim - frames.begin()) + 1;
    if (frames.size() - first < 5) {
        result.error = decode_error::too_few_frames;
        result.detail = std::to_string(frames.size() - first) +
                        " frames after the delimiter, need signature and 4 JSON frames";
        return result;
    }
    const std::string& signature = frames[first];
    if (!key.verify(signature,
                    {frames[first + 1], frames[first + 2], frames[first + 3], frames[first + 4]})) {
        result.error = decode_error::bad_signature;
        result.detail = signature.empty() ? "empty signature" : "signature does not match";
        return result;
    }
    message msg;
    msg.identities.assign(std::make_move_iterator(frames.begin()),
                          std::make_move_iterator(frames.begin() + static_cast<long>(first - 1)));
    try {
        msg.header = parse_lenient(frames[first + 1], limits);
        msg.parent_header = parse_lenient(frames[first + 2], limits);
        msg.metadata = parse_lenient(frames[first + 3], limits);
        msg.content = parse_lenient(frames[first + 4], limits);
    } catch (const core::json_decode_error& e) {
        result.error = decode_error::invalid_json;
        result.detail = e.what();
        return result;
    }
    if (!msg.header.is_object() || !msg.content.is_object() || !msg.parent_header.is_object()) {
        result.error = decode_error::invalid_json;
        result.detail = "header, parent header and content must be JSON objects";
        return result;
    }
    if (!msg.metadata.is_object()) msg.metadata = json::object();
    msg.buffers.assign(std::make_move_iterator(frames.begin() + static_cast<long>(first + 5)),
                       std::make_move_iterator(frames.end()));
    result.msg = std::move(msg);
    return result;
}

const char* to_string(decode_error error) {
    switch (error) {
        case decode_error::none:
            return "none";
        case decode_error::missing_delimiter:
            return "missing delimiter";
        case decode_error::too_few_frames:
            return "too few frames";
        case decode_error::bad_signature:
            return "bad signature";
        case decode_error::invalid_json:
            return "invalid JSON";
    }
    return "unknown";
}

}  // namespace ipybox::jupyter
