#include "approval_question.hpp"

#include "ipybox/core/python_names.hpp"
#include "ipybox/core/redactor.hpp"
#include "ipybox/core/untrusted_text.hpp"
#include "ipybox/toolserver/routes.hpp"

namespace ipybox::app {
namespace {

using nlohmann::json;

constexpr const char* gutter = "    | ";

// A name ipybox checked (a registered server, a generated module, a gentools category) shows as
// it is; anything else quoted and escaped.
std::string shown_name(const std::string& name) {
    return core::is_python_name(name) ? name : core::quote_untrusted(name, 100);
}

std::string string_argument(const json& arguments, const char* key) {
    const auto it = arguments.find(key);
    return it != arguments.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string block_of(const std::string& text) {
    return core::render_untrusted_block(text, gutter) + "\n";
}

std::string tool_call_question(const approval::tool_call& call) {
    std::string question = "The code asks to call an MCP tool.\n";
    question += "  server:    " + shown_name(call.server_name) + "\n";
    const bool named = core::is_python_name(call.python_name);
    question += "  tool:      " + (named ? call.python_name : std::string("(no Python name)"));
    if (!named || call.python_name != call.tool_name) {
        question += "  (the server's name: " + core::quote_untrusted(call.tool_name, 100) + ")";
    }
    question += "\n";
    if (!call.arguments.is_object()) {
        question +=
            "  arguments: " + approval::describe_value(call.arguments, question_value_characters) +
            "\n";
        return question;
    }
    question += "  arguments: " + std::to_string(call.arguments.size()) + "\n";
    for (const auto& [key, value] : call.arguments.items()) {
        question += "    " + approval::describe_key(key) + " = " +
                    approval::describe_value(value, question_value_characters) + "\n";
    }
    return question;
}

std::string shell_question(const approval::tool_call& call) {
    const auto command = string_argument(call.arguments, "cmd");
    if (call.tool_name == "shell_magic") {
        return "The code asks to run a cell with " +
               core::quote_untrusted(string_argument(call.arguments, "interpreter"), 100) + ":\n" +
               block_of(command);
    }
    return "The code asks to run a shell command:\n" + block_of(command);
}

std::string file_section(const std::string& label, const std::string& text) {
    return "  " + label + " (" + std::to_string(text.size()) + " bytes):\n" + block_of(text);
}

std::string save_question(const approval::tool_call& call) {
    const auto& arguments = call.arguments;
    std::string question =
        "The code asks to save a code action to your user library (it runs later in other "
        "projects' kernels).\n";
    question += "  action:    gentools." + shown_name(string_argument(arguments, "category")) +
                "." + shown_name(string_argument(arguments, "name")) + "\n";
    if (arguments.value("overwrite", false)) {
        question += "  replaces:  the saved action's files of that name\n";
    }
    const auto files = arguments.value("files", json::object());
    for (const auto& [file, text] : files.items()) {
        if (text.is_string()) {
            question +=
                file_section("file " + core::render_untrusted(file), text.get<std::string>());
        }
    }
    if (const auto init = arguments.find("category_init");
        init != arguments.end() && init->is_string()) {
        question +=
            file_section("the category's __init__.py, written only where the category has none",
                         init->get<std::string>());
    }
    return question;
}

}  // namespace

bool is_library_save(const approval::tool_call& call) {
    return call.server_name == toolserver::shell_server_name &&
           call.tool_name == toolserver::save_gentool_tool_name;
}

std::string approval_question(const approval::tool_call& given) {
    // Redacted before anything is cut: a cut must not keep part of a secret.
    const auto& filled = core::process_redactor();
    const approval::tool_call call{filled.redact(given.server_name), filled.redact(given.tool_name),
                                   filled.redact_json(given.arguments), given.python_name};
    if (is_library_save(given)) return save_question(call);
    if (given.server_name == toolserver::shell_server_name && given.arguments.is_object() &&
        given.arguments.contains("cmd")) {
        return shell_question(call);
    }
    return tool_call_question(call);
}

}  // namespace ipybox::app
