#include "ipybox/approval/gate.hpp"

#include "ipybox/core/python_names.hpp"
#include "ipybox/core/redactor.hpp"
#include "ipybox/core/untrusted_text.hpp"

namespace ipybox::approval {
namespace {

// Compact JSON with every string quoted and escaped for a person; strings are not cut here.
void append_shown(std::string& out, const nlohmann::json& value) {
    if (value.is_string()) {
        out += core::quote_untrusted(value.get_ref<const std::string&>());
    } else if (value.is_array()) {
        out += "[";
        bool first = true;
        for (const auto& item : value) {
            out += first ? "" : ", ";
            first = false;
            append_shown(out, item);
        }
        out += "]";
    } else if (value.is_object()) {
        out += "{";
        bool first = true;
        for (const auto& [key, item] : value.items()) {
            out += first ? "" : ", ";
            first = false;
            out += core::quote_untrusted(key) + ": ";
            append_shown(out, item);
        }
        out += "}";
    } else {
        out += value.dump();  // numbers, booleans, null: plain ASCII
    }
}

}  // namespace

std::string describe_value(const nlohmann::json& value, std::size_t max_characters) {
    if (value.is_string()) {
        return core::quote_untrusted(value.get_ref<const std::string&>(), max_characters);
    }
    std::string shown;
    append_shown(shown, value);
    return core::cut_in_middle(shown, max_characters);
}

std::string describe_key(std::string_view key, std::size_t max_characters) {
    return core::is_ascii_identifier(key) && key.size() <= max_characters
               ? std::string(key)
               : core::quote_untrusted(key, max_characters);
}

std::string tool_call::describe(std::size_t max_value_characters) const {
    // Redacted before values are cut, so that a cut cannot keep part of a secret.
    const auto shown = core::process_redactor().redact_json(arguments);
    std::string args;
    if (shown.is_object()) {
        for (const auto& [key, value] : shown.items()) {
            if (!args.empty()) args += ", ";
            args += describe_key(key) + "=" + describe_value(value, max_value_characters);
        }
    } else if (!shown.is_null()) {
        args = describe_value(shown, max_value_characters);
    }
    return core::render_untrusted(core::redact_secrets(server_name)) + "." +
           core::render_untrusted(core::redact_secrets(tool_name)) + "(" + args + ")";
}

}  // namespace ipybox::approval
