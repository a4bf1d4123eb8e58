#include "ipybox/approval/request.hpp"
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

namespace {

std::string shown_name(const std::string& name) {
    return core::render_untrusted(core::redact_secrets(name));
}

}  // namespace

std::vector<std::string> policy_names(const request& what) {
    const std::string reserved = std::string(reserved_server_name) + ".";
    if (const auto* call = std::get_if<tool_call>(&what)) {
        std::vector<std::string> names{call->server_name + "." + call->tool_name};
        if (!call->python_name.empty() && call->python_name != call->tool_name) {
            names.push_back(call->server_name + "." + call->python_name);
        }
        return names;
    }
    if (const auto* shell = std::get_if<shell_command>(&what)) {
        return {reserved + (shell->kind == shell_command::form::line ? shell_line_name
                                                                     : shell_cell_magic_name)};
    }
    if (std::holds_alternative<save_action>(what)) return {reserved + save_action_name};
    return {reserved + add_dependencies_name};
}

std::vector<request> shell_command_forms() {
    std::vector<request> forms;
    forms.reserve(2);
    for (const auto form : {shell_command::form::line, shell_command::form::cell_magic}) {
        shell_command command;
        command.kind = form;
        forms.emplace_back(std::move(command));
    }
    return forms;
}

bool needs_a_person(const request& what) {
    return std::holds_alternative<save_action>(what) ||
           std::holds_alternative<add_dependencies>(what);
}

std::string describe(const request& what) {
    if (const auto* call = std::get_if<tool_call>(&what)) return call->describe();
    if (const auto* shell = std::get_if<shell_command>(&what)) {
        const auto& filled = core::process_redactor();
        std::string line = shell->kind == shell_command::form::line
                               ? std::string("shell command ")
                               : "cell run by " +
                                     core::quote_untrusted(filled.redact(shell->interpreter), 80) +
                                     " ";
        return line + core::quote_untrusted(filled.redact(shell->command),
                                            tool_call::default_value_characters);
    }
    if (const auto* needs = std::get_if<add_dependencies>(&what)) {
        std::string servers;
        for (const auto& [name, params] : needs->servers) {
            servers += (servers.empty() ? "" : ", ") + shown_name(name);
        }
        std::string packages;
        for (const auto& package : needs->packages) {
            packages += (packages.empty() ? "" : ", ") + core::quote_untrusted(package.spec, 80);
        }
        return "dependencies of " + shown_name(needs->action) + ": servers [" + servers +
               "], packages [" + packages + "]";
    }
    const auto& save = std::get<save_action>(what);
    const auto count = save.files.size();
    return "save of gentools." + shown_name(save.category) + "." + shown_name(save.name) + " (" +
           std::to_string(count) + (count == 1 ? " file" : " files") +
           (save.overwrite ? ", replacing" : "") + ")";
}

}  // namespace ipybox::approval
