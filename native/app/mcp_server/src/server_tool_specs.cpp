#include "server_tool_specs.hpp"

namespace ipybox::app {
namespace {

using nlohmann::json;

mcp::session::tool_descriptor make(std::string name, std::string title, std::string description,
                                   json input_schema, json annotations) {
    mcp::session::tool_descriptor tool;
    tool.name = std::move(name);
    tool.title = std::move(title);
    tool.description = std::move(description);
    tool.input_schema = std::move(input_schema);
    tool.annotations = std::move(annotations);
    return tool;
}

}  // namespace

mcp::session::tool_descriptor register_mcp_server_spec() {
    return make(
        "register_mcp_server", "Register an MCP server",
        "Connect to an MCP server and generate a typed Python API for its tools, importable in "
        "the kernel as mcptools.<server_name>.\n\n"
        "Each tool becomes a module mcptools/<server_name>/<tool>.py with a Pydantic `Params` "
        "model, a `Result` model when the tool declares an output schema, and `run(params)`:\n"
        "    from mcptools.<server_name> import <tool>\n"
        "    result = <tool>.run(<tool>.Params(...))\n"
        "Read a module's Params/Result/run to learn a tool before using it.\n\n"
        "- ${VAR} placeholders in server_params are filled from the host environment and the "
        "workspace .env when the server starts; secrets never enter the kernel.\n"
        "- Registering the same name again replaces the API and restarts that server.\n"
        "- mcptools/ and registrations survive reset().\n\n"
        "Returns the generated module names, one per line.",
        json{{"type", "object"},
             {"properties",
              {{"server_name",
                {{"type", "string"},
                 {"description",
                  "Package name for the API: a Python identifier such as "
                  "'github' or 'web_search' (letters, digits, underscores; no "
                  "leading digit or underscore; not a Python keyword)."}}},
               {"server_params",
                {{"type", "object"},
                 {"additionalProperties", true},
                 {"description",
                  "How to reach the server. stdio: {\"command\": \"npx\", \"args\": [...], "
                  "\"env\": {...}}. HTTP: {\"url\": \"https://host/mcp\", \"headers\": {...}}, "
                  "with \"type\": \"streamable_http\" or \"sse\" when the URL path does not end "
                  "in /mcp or /sse."}}}}},
             {"required", {"server_name", "server_params"}}},
        json{{"title", "Register an MCP server"},
             {"readOnlyHint", false},
             {"destructiveHint", false},
             {"openWorldHint", true}});
}

mcp::session::tool_descriptor execute_ipython_cell_spec() {
    return make(
        "execute_ipython_cell", "Run Python code",
        "Execute Python code in a stateful IPython kernel.\n\n"
        "Variables, imports and definitions persist across calls; calls run one at a time. "
        "Top-level `await` works. The working directory is the workspace; generated tool APIs "
        "are under mcptools/, saved code actions under gentools/. Plots (matplotlib) come back as "
        "images and are saved under images/.\n\n"
        "Returns stdout, stderr and the value of the last expression. If the output is longer "
        "than max_output_chars, its beginning and end are kept and the full text is saved to a "
        "file whose path is given. An exception returns an error with its type, message and "
        "traceback. If the code runs longer than `timeout` seconds the kernel is interrupted; "
        "the error says whether the kernel's state was kept.",
        json{{"type", "object"},
             {"properties",
              {{"code", {{"type", "string"}, {"description", "Python code to execute."}}},
               {"timeout",
                {{"type", "number"},
                 {"default", 120},
                 {"description", "Seconds before the kernel is interrupted (default 120)."}}},
               {"max_output_chars",
                {{"type", "integer"},
                 {"default", 5000},
                 {"description",
                  "Most characters of output to return (default 5000); the "
                  "middle of longer output is left out."}}}}},
             {"required", {"code"}}},
        json{{"title", "Run Python code"},
             {"readOnlyHint", false},
             {"destructiveHint", true},
             {"openWorldHint", true}});
}

mcp::session::tool_descriptor install_package_spec() {
    return make("install_package", "Install a Python package",
                "Install a Python package with pip for use in the kernel.\n\n"
                "The package is importable at once, without reset(), and stays installed across "
                "reset(). Accepts a name, a version specifier (\"numpy>=1.26\"), a local path or a "
                "git+https:// URL; pip options are not accepted. With scope \"user\" it goes "
                "into a per-user folder beside the user library, which the kernels of every "
                "project see (after the project's own packages): for actions saved there.\n\n"
                "Returns pip's output.",
                json{{"type", "object"},
                     {"properties",
                      {{"package_name",
                        {{"type", "string"},
                         {"description",
                          "What to install: 'requests', 'pandas==2.2.2', "
                          "'./my_pkg' or 'git+https://github.com/owner/repo'."}}},
                       {"scope",
                        {{"type", "string"},
                         {"enum", {"project", "user"}},
                         {"default", "project"},
                         {"description",
                          "'project' (default): this project only (.ipybox/site-packages); "
                          "'user': every project of this user, for actions in the user "
                          "library."}}}}},
                     {"required", {"package_name"}}},
                json{{"title", "Install a Python package"},
                     {"readOnlyHint", false},
                     {"destructiveHint", false},
                     {"openWorldHint", true}});
}

mcp::session::tool_descriptor reset_spec() {
    return make(
        "reset", "Reset the kernel",
        "Start a fresh IPython kernel: all variables, imports and definitions are cleared, and "
        "connections to registered MCP servers are closed (they reconnect on next use). Files "
        "in the workspace, installed packages, mcptools/ and registered servers are kept.",
        json{{"type", "object"}, {"properties", json::object()}},
        json{{"title", "Reset the kernel"},
             {"readOnlyHint", false},
             {"destructiveHint", true},
             {"idempotentHint", true},
             {"openWorldHint", false}});
}

mcp::session::tool_descriptor search_tools_spec() {
    return make(
        "search_tools", "Search tools and saved code actions",
        "Find the tools to use for a task: a ranked search over the generated MCP tool APIs "
        "(mcptools/), output parsers (mcpparse/) and saved code actions (gentools/, in this "
        "project and in the user's library), without writing code.\n\n"
        "Each hit gives the module, its kind and origin, a one-line summary, the import line "
        "and the call signature; saved actions that call a tool whose schema changed are "
        "marked. Search first, then read only the interfaces of the hits you will use "
        "(mcptools/<server>/<tool>.py, gentools/<category>/<name>/api.py). In the kernel the "
        "same search is `from ipybox_runtime import search_tools`.",
        json{{"type", "object"},
             {"properties",
              {{"query",
                {{"type", "string"},
                 {"description",
                  "What the tool should do, in a few words: 'largest files in a "
                  "directory', 'create github issue'."}}},
               {"limit",
                {{"type", "integer"},
                 {"default", 10},
                 {"minimum", 1},
                 {"maximum", 50},
                 {"description", "Most hits to return (default 10)."}}}}},
             {"required", {"query"}}},
        json{{"title", "Search tools and saved code actions"},
             {"readOnlyHint", true},
             {"destructiveHint", false},
             {"idempotentHint", true},
             {"openWorldHint", false}});
}

std::string server_instructions() {
    return "ipybox runs Python in a stateful IPython kernel. Prefer one execute_ipython_cell "
           "call that does several steps over many small calls. To use another MCP server's "
           "tools from Python, register it with register_mcp_server and import its generated "
           "API from mcptools.<server_name>; tool calls made from code go through the host "
           "and may need approval. search_tools finds registered tools and saved code actions "
           "(gentools) by what they do.";
}

}  // namespace ipybox::app
