#include "approval_question.hpp"

#include "ipybox/core/python_names.hpp"
#include "ipybox/core/redactor.hpp"
#include "ipybox/core/untrusted_text.hpp"

namespace ipybox::app {
namespace {

using nlohmann::json;

constexpr const char* gutter = "    | ";

// A name ipybox checked (a registered server, a generated module, a gentools category) shows as
// it is; anything else quoted and escaped.
std::string shown_name(const std::string& name) {
    return core::is_python_name(name) ? name : core::quote_untrusted(name, 100);
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

std::string shell_question(const approval::shell_command& shell) {
    if (shell.kind == approval::shell_command::form::cell_magic) {
        return "The code asks to run a cell with " + core::quote_untrusted(shell.interpreter, 100) +
               ":\n" + block_of(shell.command);
    }
    return "The code asks to run a shell command:\n" + block_of(shell.command);
}

std::string file_section(const std::string& label, const std::string& text) {
    return "  " + label + " (" + std::to_string(text.size()) + " bytes):\n" + block_of(text);
}

std::string save_question(const approval::save_action& save) {
    std::string question =
        "The code asks to save a code action to your user library (it runs later in other "
        "projects' kernels).\n";
    question +=
        "  action:    gentools." + shown_name(save.category) + "." + shown_name(save.name) + "\n";
    if (save.overwrite) question += "  replaces:  the saved action's files of that name\n";
    for (const auto& [file, text] : save.files) {
        question += file_section("file " + core::render_untrusted(file), text);
    }
    if (save.category_init) {
        question +=
            file_section("the category's __init__.py, written only where the category has none",
                         *save.category_init);
    }
    return question;
}

std::string dependencies_question(const approval::add_dependencies& needs) {
    std::string question =
        "The code asks ipybox to add to this project what a saved code action needs.\n";
    question += "  action:    " + core::quote_untrusted(needs.action, 120) + "\n";
    if (!needs.project.empty()) {
        question += "  project:   " + core::quote_untrusted(needs.project, 300) +
                    " (what ${IPYBOX_WORKSPACE} stands for)\n";
    }
    for (const auto& [name, params] : needs.servers) {
        question += "  server:    " + shown_name(name) +
                    " (registered for this project; a command in it runs on this machine)\n";
        question += block_of(params.dump(2, ' ', false, json::error_handler_t::replace));
        const auto outside = needs.outside_project.find(name);
        if (outside == needs.outside_project.end()) continue;
        for (const auto& path : outside->second) {
            question += "  CHECK FIRST: it names " + core::quote_untrusted(path, 300) +
                        ", outside this project: the server would work there, not here\n";
        }
    }
    for (const auto& package : needs.packages) {
        question += "  package:   " + core::quote_untrusted(package.spec, 200) +
                    (package.for_user ? " (for every project: the user's site folder)\n"
                                      : " (for this project)\n");
    }
    return question;
}

}  // namespace

std::string approval_question(const approval::request& what) {
    // Redacted before anything is cut: a cut must not keep part of a secret.
    const auto& filled = core::process_redactor();
    if (const auto* given = std::get_if<approval::tool_call>(&what)) {
        return tool_call_question({filled.redact(given->server_name),
                                   filled.redact(given->tool_name),
                                   filled.redact_json(given->arguments), given->python_name});
    }
    if (const auto* shell = std::get_if<approval::shell_command>(&what)) {
        return shell_question(
            {shell->kind, filled.redact(shell->command), filled.redact(shell->interpreter)});
    }
    if (const auto* needs = std::get_if<approval::add_dependencies>(&what)) {
        auto shown = *needs;
        for (auto& [name, params] : shown.servers) params = filled.redact_json(params);
        for (auto& [name, paths] : shown.outside_project) {
            for (auto& path : paths) path = filled.redact(path);
        }
        return dependencies_question(shown);
    }
    auto save = std::get<approval::save_action>(what);
    for (auto& [file, text] : save.files) text = filled.redact(text);
    if (save.category_init) save.category_init = filled.redact(*save.category_init);
    return save_question(save);
}

}  // namespace ipybox::app
