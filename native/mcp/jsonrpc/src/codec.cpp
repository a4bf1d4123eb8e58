#include "ipybox/mcp/jsonrpc/codec.hpp"

#include <limits>

#include "ipybox/core/redactor.hpp"
#include "ipybox/core/utf8.hpp"

namespace ipybox::mcp::jsonrpc {
namespace {

decode_failure invalid(const std::string& detail, std::optional<request_id> id = std::nullopt,
                       bool reply_expected = true) {
    return {{error_code::invalid_request, "Invalid Request: " + detail, nullptr},
            std::move(id),
            reply_expected};
}

std::string human_size(std::size_t bytes) {
    constexpr std::size_t mib = 1024 * 1024;
    if (bytes >= mib && bytes % mib == 0) return std::to_string(bytes / mib) + " MiB";
    if (bytes < mib) return std::to_string(bytes) + " bytes";
    const auto tenths = bytes * 10 / mib;
    return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " MiB (" +
           std::to_string(bytes) + " bytes)";
}

decode_result decode_error_object(const json& value, std::optional<request_id> id) {
    const json& error = value.at("error");
    if (!error.is_object()) return invalid("\"error\" must be an object", id, false);
    const auto code = error.find("code");
    if (code == error.end() || !code->is_number_integer()) {
        return invalid("\"error.code\" must be an integer", id, false);
    }
    const auto text = error.find("message");
    if (text == error.end() || !text->is_string()) {
        return invalid("\"error.message\" must be a string", id, false);
    }
    const auto data = error.find("data");
    const auto raw_code = code->get<std::int64_t>();
    if (raw_code < std::numeric_limits<int>::min() || raw_code > std::numeric_limits<int>::max()) {
        return invalid("\"error.code\" is out of range", id, false);
    }
    return message(error_response{std::move(id),
                                  {static_cast<int>(raw_code), text->get<std::string>(),
                                   data == error.end() ? json() : *data}});
}

decode_result decode_response(const json& value) {
    const bool has_result = value.contains("result");
    const bool has_error = value.contains("error");
    const auto id_member = value.find("id");
    const bool null_id = id_member == value.end() || id_member->is_null();
    const auto id = null_id ? std::nullopt : request_id_from_json(*id_member);
    if (has_result && has_error) {
        return invalid("a response must not carry both \"result\" and \"error\"", id, false);
    }
    if (!null_id && !id) return invalid("\"id\" must be a string or an integer", id, false);
    if (has_error) return decode_error_object(value, id);
    if (!id) return invalid("a result response needs the id of its request", id, false);
    return message(response{*id, value.at("result")});
}

}  // namespace

std::string oversized_reason(std::optional<std::size_t> size, std::size_t limit) {
    return (size ? "a message of " + human_size(*size) : std::string("a message")) +
           " exceeds the " + human_size(limit) + " limit";
}

decode_failure unreadable_message(const std::string& reason, const envelope_hints& hints) {
    decode_failure failure{
        {error_code::parse_error, "Parse error: " + reason, nullptr}, std::nullopt, true};
    if (hints.looks_like_response()) {
        failure.id = hints.id;
        failure.reply_expected = false;
    }
    return failure;
}

decode_result decode(std::string_view text, const core::json_limits& limits) {
    json value;
    try {
        value = core::decode_json(text, limits);
    } catch (const core::json_decode_error& error) {
        // A syntax error quotes the token it stopped at, which can be most of the text: the
        // reason goes into errors and log lines, so it is cut (between UTF-8 characters).
        // Secrets are redacted before the cut: a cut inside one would leave its first part.
        constexpr std::size_t longest_reason = 300;
        const auto redacted = core::redact_secrets(error.what());
        std::string_view reason = redacted;
        if (reason.size() <= longest_reason)
            return unreadable_message(std::string(reason), scan_envelope(text));
        return unreadable_message(std::string(core::utf8_truncate(reason, longest_reason)) + "...",
                                  scan_envelope(text));
    }
    return decode_json(value);
}

decode_result decode_json(const json& value) {
    if (value.is_array()) {
        return invalid(
            "batches are not supported (JSON-RPC batching was removed from MCP in 2025-06-18); "
            "send one message per line");
    }
    if (!value.is_object()) return invalid("a message must be a JSON object");

    const bool has_method = value.contains("method");
    const bool looks_like_response =
        !has_method && (value.contains("result") || value.contains("error"));
    const auto id_member = value.find("id");
    const std::optional<request_id> id =
        id_member == value.end() ? std::nullopt : request_id_from_json(*id_member);

    const auto version = value.find("jsonrpc");
    if (version == value.end() || !version->is_string() || version->get<std::string>() != "2.0") {
        return invalid("\"jsonrpc\" must be the string \"2.0\"", id, !looks_like_response);
    }
    if (looks_like_response) return decode_response(value);
    if (!has_method) {
        return invalid(
            "a message needs \"method\" (request, notification) or \"result\"/\"error\" "
            "(response)",
            id);
    }

    const json& method = value.at("method");
    if (!method.is_string()) return invalid("\"method\" must be a string", id);
    json params;
    if (const auto found = value.find("params"); found != value.end() && !found->is_null()) {
        if (!found->is_object() && !found->is_array()) {
            return invalid("\"params\" must be an object or an array", id);
        }
        params = *found;
    }
    if (id_member == value.end()) {
        return message(notification{method.get<std::string>(), std::move(params)});
    }
    if (!id) {
        return invalid("a request id must be a string or an integer (MCP forbids null ids)");
    }
    return message(request{*id, method.get<std::string>(), std::move(params)});
}

json to_json(const message& msg) {
    json out = {{"jsonrpc", "2.0"}};
    std::visit(
        [&out](const auto& m) {
            using type = std::decay_t<decltype(m)>;
            if constexpr (std::is_same_v<type, request>) {
                out["id"] = to_json(m.id);
                out["method"] = m.method;
                if (!m.params.is_null()) out["params"] = m.params;
            } else if constexpr (std::is_same_v<type, notification>) {
                out["method"] = m.method;
                if (!m.params.is_null()) out["params"] = m.params;
            } else if constexpr (std::is_same_v<type, response>) {
                out["id"] = to_json(m.id);
                out["result"] = m.result;
            } else {
                out["id"] = m.id ? to_json(*m.id) : json();
                json error = {{"code", m.error.code}, {"message", m.error.message}};
                if (!m.error.data.is_null()) error["data"] = m.error.data;
                out["error"] = std::move(error);
            }
        },
        msg);
    return out;
}

std::string encode(const message& msg) {
    constexpr auto dump = [](const json& value) {
        return value.dump(-1, ' ', false, json::error_handler_t::replace);
    };
    // The payload's key ("params", "result") sorts after every other key of its envelope, so
    // it is appended last, where nlohmann's sorted objects would put it.
    // A response's result is there even when null; absent params are left out.
    const auto splice = [&](const json& envelope, const char* key, const json& payload) {
        std::string text = dump(envelope);
        if (payload.is_null() && std::string_view(key) == "params") return text;
        text.pop_back();
        text += ",\"";
        text += key;
        text += "\":";
        text += dump(payload);
        text += '}';
        return text;
    };
    if (const auto* m = std::get_if<response>(&msg)) {
        return splice({{"jsonrpc", "2.0"}, {"id", to_json(m->id)}}, "result", m->result);
    }
    if (const auto* m = std::get_if<request>(&msg)) {
        return splice({{"jsonrpc", "2.0"}, {"id", to_json(m->id)}, {"method", m->method}}, "params",
                      m->params);
    }
    if (const auto* m = std::get_if<notification>(&msg)) {
        return splice({{"jsonrpc", "2.0"}, {"method", m->method}}, "params", m->params);
    }
    return dump(to_json(msg));
}

}  // namespace ipybox::mcp::jsonrpc
