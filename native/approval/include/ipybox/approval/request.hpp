#pragma once
// What kernel code can ask the host to approve, one type per kind, each with the fields it needs
// (ARCHITECTURE.md, security property 4). Every field comes from kernel code and is untrusted:
// whoever shows one to a person escapes it first (approval_question in app, describe() here).
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace ipybox::approval {

// A call of a tool of an MCP server the host registered.
struct tool_call {
    std::string server_name;
    std::string tool_name;  // the MCP name, as the server lists it
    nlohmann::json arguments = nlohmann::json::object();
    // The generated Python module name of the tool (codegen's naming; `get_env` for `get-env`),
    // so that policy rules can name it either way. Empty until the host has looked it up.
    std::string python_name = {};

    // `server.tool(a=1, b="x")` on one line, for logs and the C++ API: every argument, each
    // value as describe_value() shows it; the tool's name and non-identifier keys escaped;
    // values filled from ${VAR} placeholders redacted (core/redactor.hpp).
    std::string describe(std::size_t max_value_characters = default_value_characters) const;

    static constexpr std::size_t default_value_characters = 200;
};

// A shell command the kernel runs itself once approved (the kernel's shell_approval extension).
struct shell_command {
    enum class form {
        line,        // `!cmd`, `!!cmd`, `x = !cmd`, `%sx`, aliases such as `%ls` and `%pip`
        cell_magic,  // `%%bash`, `%%sh`, `%%script <program>` and the other script magics
    };
    form kind = form::line;
    std::string command;      // exactly the text that runs, expansions done
    std::string interpreter;  // cell_magic: the program and its options; empty for a line
};

// A code action saved into the user's gentools library on behalf of a kernel that may not
// write there itself (a sandboxed one). What it saves runs later in other projects' kernels.
struct save_action {
    std::string category;
    std::string name;
    std::map<std::string, std::string> files;  // file name -> UTF-8 text
    // The category's __init__.py, written only where the category has none.
    std::optional<std::string> category_init;
    bool overwrite = false;  // replace the action's files when they exist
};

// What a saved code action needs and this project lacks, to be added by the host: MCP servers to
// register (each with the registration recorded when the action was saved; ${VAR} placeholders
// stay placeholders until the host fills them) and packages to pip-install. Registering a stdio
// server runs its command on the host: a person decides (policy.hpp: only a rule naming it
// exactly allows it).
struct add_dependencies {
    std::string action;  // the action that needs them (`gentools.files.largest_files`), shown
    std::map<std::string, nlohmann::json> servers;  // name -> server parameters
    struct package {
        std::string spec;       // as install_package takes it
        bool for_user = false;  // into the user's site folder (an action of the user library)
    };
    std::vector<package> packages;
    // Filled by the host before the person is asked (toolserver::dependency_adder::annotate),
    // never read from the kernel's request: this project's folder (what ${IPYBOX_WORKSPACE}
    // becomes) and, per server, the absolute paths its parameters name outside it
    // (workspace/outside_project.hpp), most likely the folders of the project that saved it.
    std::string project;
    std::map<std::string, std::vector<std::string>> outside_project;
};

using request = std::variant<tool_call, shell_command, save_action, add_dependencies>;

// True for the kinds that run or keep something on the host beyond the execution (a save into
// the user library, dependencies to add): whatever a front end does with other requests, it asks
// a person about these or refuses them, and no wildcard or default of a policy allows them.
bool needs_a_person(const request& what);

// The names approval policy rules match a request by (policy.hpp): `server.tool` and, when
// known, `server.python_name` for a tool call. The other kinds have names of the policy's own,
// under `ipybox.` (no MCP server may be registered as "ipybox"): `ipybox.shell`,
// `ipybox.shell_magic`, `ipybox.save_gentool` and `ipybox.add_dependencies`.
std::vector<std::string> policy_names(const request& what);

inline constexpr const char* reserved_server_name = "ipybox";
inline constexpr const char* shell_line_name = "shell";
inline constexpr const char* shell_cell_magic_name = "shell_magic";
inline constexpr const char* save_action_name = "save_gentool";
inline constexpr const char* add_dependencies_name = "add_dependencies";

// Both forms of shell commands, without a command: for listing the names a policy's rules may
// match (policy::coverage).
std::vector<request> shell_command_forms();

// One line for logs: a tool call as tool_call::describe(), a shell command quoted and cut, a
// save by its action name and file count. Untrusted text escaped, secrets redacted.
std::string describe(const request& what);

// One argument's value as a person sees it: a string quoted and escaped
// (core/untrusted_text.hpp), other JSON in compact form with every string and key so; longer
// than max_characters, it is cut in the middle with its length. Never dropped.
std::string describe_value(const nlohmann::json& value,
                           std::size_t max_characters = tool_call::default_value_characters);

// An argument's name as a person sees it: as it is when an ASCII identifier, else quoted and
// escaped (cut in the middle past max_characters).
std::string describe_key(std::string_view key, std::size_t max_characters = 80);

}  // namespace ipybox::approval
