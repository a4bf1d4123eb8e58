#pragma once
// The approval gate: every tool call from kernel code waits here for a decision before the MCP
// tool runs (ARCHITECTURE.md, security property 4).
#include <nlohmann/json.hpp>
#include <string>

namespace ipybox::approval {

struct tool_call {
    std::string server_name;
    std::string tool_name;  // the MCP name, as the server lists it
    nlohmann::json arguments = nlohmann::json::object();
    // The generated Python module name of the tool (codegen's naming; `get_env` for `get-env`),
    // so that policy rules can name it either way. Empty when unknown (shell commands).
    std::string python_name = {};

    // `server.tool(a=1, b="x")` on one line, for logs and the C++ API: every argument, each
    // value as describe_value() shows it; the tool's name and non-identifier keys escaped;
    // values filled from ${VAR} placeholders redacted (core/redactor.hpp).
    std::string describe(std::size_t max_value_characters = default_value_characters) const;

    static constexpr std::size_t default_value_characters = 200;
};

// One argument's value as a person sees it: a string quoted and escaped
// (core/untrusted_text.hpp), other JSON in compact form with every string and key so; longer
// than max_characters, it is cut in the middle with its length. Never dropped.
std::string describe_value(const nlohmann::json& value,
                           std::size_t max_characters = tool_call::default_value_characters);

// An argument's name as a person sees it: as it is when an ASCII identifier, else quoted and
// escaped (cut in the middle past max_characters).
std::string describe_key(std::string_view key, std::size_t max_characters = 80);

enum class verdict { approved, rejected, timed_out };

struct decision {
    verdict outcome = verdict::approved;
    std::string reason;  // shown to the kernel code when not approved
};

// Decides about one call. Implementations block until they know (a prompt, a policy, a UI).
// Thread-safety: decide() may be called from several threads at once.
class gate {
  public:
    virtual ~gate() = default;
    virtual decision decide(const tool_call& call) = 0;
};

// Approves everything: the default of execute() and of the MCP server, as in the reference.
class approve_all : public gate {
  public:
    decision decide(const tool_call&) override { return {verdict::approved, {}}; }
};

}  // namespace ipybox::approval
