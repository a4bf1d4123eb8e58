#include "server_tool_table.hpp"

#include "server_tools.hpp"

namespace ipybox::app {
namespace {

using nlohmann::json;

json hints(bool read_only, bool destructive, bool open_world, bool idempotent = false) {
    json annotations{{"readOnlyHint", read_only},
                     {"destructiveHint", destructive},
                     {"openWorldHint", open_world}};
    if (idempotent) annotations["idempotentHint"] = true;
    return annotations;
}

tool_parameter required(std::string name, parameter_type type, std::string description) {
    tool_parameter parameter;
    parameter.name = std::move(name);
    parameter.type = type;
    parameter.description = std::move(description);
    parameter.required = true;
    return parameter;
}

tool_parameter optional(std::string name, parameter_type type, json default_value,
                        std::string description) {
    tool_parameter parameter;
    parameter.name = std::move(name);
    parameter.type = type;
    parameter.description = std::move(description);
    parameter.default_value = std::move(default_value);
    return parameter;
}

server_tool register_mcp_server() {
    server_tool tool;
    tool.name = "register_mcp_server";
    tool.title = "Register an MCP server";
    tool.description =
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
        "Returns each tool's module name, and beneath it how to call it (Params(...) with the "
        "parameters' types, the result's fields) and what it does; a result most of them share "
        "is named once, in the first line.";
    tool.parameters.push_back(required(
        "server_name", parameter_type::string,
        "Package name for the API: a Python identifier such as 'github' or 'web_search' "
        "(letters, digits, underscores; no leading digit or underscore; not a Python keyword)."));
    auto& server_params = tool.parameters.emplace_back(required(
        "server_params", parameter_type::object,
        "How to reach the server. stdio: {\"command\": \"npx\", \"args\": [...], \"env\": "
        "{...}}. HTTP: {\"url\": \"https://host/mcp\", \"headers\": {...}}, with \"type\": "
        "\"streamable_http\" or \"sse\" when the URL path does not end in /mcp or /sse."));
    server_params.expected =
        "an object such as {\"command\": \"npx\", \"args\": [...]} or {\"url\": \"https://...\"}";
    tool.annotations = hints(false, false, true);
    tool.line = tool_line::servers;
    tool.handler = &server_tools::register_server;
    tool.docs =
        "generates `mcptools/<server_name>/`, records the server host-side (remembered for the "
        "workspace across restarts, outside the workspace), returns each tool's module name and "
        "beneath it its call (`Params(...)` with the parameters' types, the result's fields) and "
        "its summary (a result most of them share named once, in the first line)";
    return tool;
}

server_tool install_package() {
    server_tool tool;
    tool.name = "install_package";
    tool.title = "Install a Python package";
    tool.description =
        "Install a Python package with pip for use in the kernel.\n\n"
        "The package is importable at once, without reset(), and stays installed across "
        "reset(). Accepts a name, a version specifier (\"numpy>=1.26\"), a local path or a "
        "git+https:// URL; pip options are not accepted. With scope \"user\" it goes into a "
        "per-user folder beside the user library, which the kernels of every project see "
        "(after the project's own packages): for actions saved there.\n\n"
        "Returns pip's output.";
    tool.parameters.push_back(required("package_name", parameter_type::string,
                                       "What to install: 'requests', 'pandas==2.2.2', "
                                       "'./my_pkg' or 'git+https://github.com/owner/repo'."));
    auto& scope = tool.parameters.emplace_back(
        optional("scope", parameter_type::string, "project",
                 "'project' (default): this project only (.ipybox/site-packages); 'user': every "
                 "project of this user, for actions in the user library."));
    scope.choices = {"project", "user"};
    tool.annotations = hints(false, false, true);
    tool.handler = &server_tools::install_package;
    tool.docs =
        "`pip install` with the kernel's Python into a private staging folder, then moved into "
        "`<workspace>/.ipybox/site-packages` (with `scope=\"user\"`: the per-user folder every "
        "project's kernels see) without following links: importable at once, kept across "
        "`reset`; pip options are refused";
    return tool;
}

server_tool execute_ipython_cell() {
    server_tool tool;
    tool.name = "execute_ipython_cell";
    tool.title = "Run Python code";
    tool.description =
        "Execute Python code in a stateful IPython kernel.\n\n"
        "Variables, imports and definitions persist across calls; calls run one at a time. "
        "Top-level `await` works. The working directory is the workspace; generated tool APIs "
        "are under mcptools/, saved code actions under gentools/. Plots (matplotlib) come back as "
        "images and are saved under images/.\n\n"
        "Returns stdout, stderr and the value of the last expression. If the output is longer "
        "than max_output_chars, its beginning and end are kept and the full text is saved to a "
        "file whose path is given. An exception returns an error with its type, message and "
        "traceback. If the code runs longer than `timeout` seconds the kernel is interrupted; "
        "the error says whether the kernel's state was kept.";
    tool.parameters.push_back(required("code", parameter_type::string, "Python code to execute."));
    auto& timeout = tool.parameters.emplace_back(
        optional("timeout", parameter_type::number, 120,
                 "Seconds before the kernel is interrupted (default 120)."));
    timeout.exclusive_minimum = 0;
    timeout.expected = "a positive number of seconds";
    auto& max_output_chars = tool.parameters.emplace_back(
        optional("max_output_chars", parameter_type::integer, 5000,
                 "Most characters of output to return (default 5000); the middle of longer "
                 "output is left out."));
    max_output_chars.minimum = 1;
    auto& images = tool.parameters.emplace_back(
        optional("images", parameter_type::string, "inline",
                 "'inline' (default): plots and other images come back as image content too; "
                 "'paths': only their file paths, for an agent that does not need to see them."));
    images.choices = {"inline", "paths"};
    tool.annotations = hints(false, true, true);
    tool.handler = &server_tools::execute_cell;
    tool.docs =
        "runs code in the stateful kernel; returns output, plots as image content (up to 8 MiB "
        "of images per result; none with `images=\"paths\"`) and their files (20 per result at "
        "most, the first and last 10: "
        "the others are counted and their full list saved under `.ipybox/outputs/`) and file "
        "links; long output keeps its beginning and end, the full text is saved under "
        "`.ipybox/outputs/`; errors and timeouts come back as `isError` saying what happened to "
        "the kernel's state; cancellation and progress notifications work";
    return tool;
}

server_tool search_tools() {
    server_tool tool;
    tool.name = "search_tools";
    tool.title = "Search tools and saved code actions";
    tool.description =
        "Find the tools to use for a task: a ranked search over the generated MCP tool APIs "
        "(mcptools/), output parsers (mcpparse/) and saved code actions (gentools/, in this "
        "project and in the user's library), without writing code.\n\n"
        "Each hit gives the module, its kind and origin, a one-line summary, the import line "
        "and the call signature; saved actions that call a tool whose schema changed are "
        "marked. Search first, then read only the interfaces of the hits you will use "
        "(mcptools/<server>/<tool>.py, gentools/<category>/<name>/api.py). In the kernel the "
        "same search is `from ipybox_runtime import search_tools`.";
    tool.parameters.push_back(required("query", parameter_type::string,
                                       "What the tool should do, in a few words: 'largest "
                                       "files in a directory', 'create github issue'."));
    auto& limit = tool.parameters.emplace_back(
        optional("limit", parameter_type::integer, 10, "Most hits to return (default 10)."));
    limit.minimum = 1;
    limit.maximum = 50;
    tool.annotations = hints(true, false, false, true);
    tool.handler = &server_tools::search_tools;
    tool.docs =
        "ranked search (BM25) over `mcptools/`, `mcpparse/` and every gentools root: each hit "
        "with kind, origin, summary, import line and signature; in the kernel `from "
        "ipybox_runtime import search_tools`";
    return tool;
}

server_tool reset() {
    server_tool tool;
    tool.name = "reset";
    tool.title = "Reset the kernel";
    tool.description =
        "Start a fresh IPython kernel: all variables, imports and definitions are cleared, and "
        "connections to registered MCP servers are closed (they reconnect on next use). Files "
        "in the workspace, installed packages, mcptools/ and registered servers are kept.";
    tool.annotations = hints(false, true, false, true);
    tool.handler = &server_tools::reset;
    tool.docs =
        "fresh kernel (from a pre-started spare); files, packages, `mcptools/` and registrations "
        "stay";
    return tool;
}

server_tool create_kernel() {
    server_tool tool;
    tool.name = "create_kernel";
    tool.title = "Create a kernel";
    tool.description =
        "Start a new IPython kernel of your own and get its kernel_id. Pass kernel_id to "
        "execute_ipython_cell, install_package, register_mcp_server, search_tools and reset to "
        "use it; calls without kernel_id use your implicit kernel. Each kernel has its own "
        "variables, registered servers and tool server; only you can see or use yours.\n\n"
        "Returns kernel_id (128 random bits), its workspace, whether it is sandboxed and its "
        "idle TTL: a kernel idle for longer is stopped and its id becomes unknown.";
    tool.parameters.push_back(
        optional("workspace", parameter_type::string, "",
                 "Folder of the kernel, relative to the server's workspace (made if missing), e.g. "
                 "'agent1'; '' (default): the server's workspace itself."));
    tool.parameters.push_back(optional(
        "sandbox", parameter_type::boolean, nullptr,
        "Run the kernel sandboxed (true) or not (false); default: as the server runs kernels. "
        "A server started with --sandbox never gives an unsandboxed kernel."));
    tool.parameters.push_back(optional("memory", parameter_type::string, nullptr,
                                       "Memory limit of the kernel's process tree, e.g. '1G'; "
                                       "at most the server's (default: the server's)."));
    auto& cpu = tool.parameters.emplace_back(
        optional("cpu_seconds", parameter_type::integer, nullptr,
                 "CPU time limit in seconds; at most the server's (default: the server's)."));
    cpu.minimum = 1;
    tool.parameters.push_back(optional(
        "fast_reset", parameter_type::boolean, false,
        "Keep a spare kernel so that reset takes milliseconds instead of a cold start (about a "
        "second), at the memory of a second kernel. Default false."));
    tool.annotations = hints(false, false, false);
    tool.line = tool_line::servers;
    tool.action = handle_action::create;
    tool.docs =
        "a kernel of the caller's own (own executor, tool server and registrations) in the "
        "workspace or a subfolder, sandboxed as the server allows, limits within the server's, "
        "one cold kernel unless `fast_reset` keeps a spare; returns `kernel_id` (128 random bits) "
        "and the idle TTL";
    return tool;
}

server_tool list_kernels() {
    server_tool tool;
    tool.name = "list_kernels";
    tool.title = "List your kernels";
    tool.description =
        "List your kernels: kernel_id, workspace, whether sandboxed, seconds idle and seconds "
        "until an idle one is stopped. Your implicit kernel (used without kernel_id) is listed "
        "without an id once it has started.";
    tool.annotations = hints(true, false, false, true);
    tool.line = tool_line::servers;
    tool.action = handle_action::list;
    tool.docs = "the caller's kernels with workspace, sandboxing, idle time and time left";
    return tool;
}

server_tool destroy_kernel() {
    server_tool tool;
    tool.name = "destroy_kernel";
    tool.title = "Destroy a kernel";
    tool.description =
        "Stop a kernel made by create_kernel: its variables are lost, a cell still running is "
        "interrupted, and every process it started ends. Files in its workspace are kept.";
    tool.parameters.push_back(
        required("kernel_id", parameter_type::string, "The kernel_id create_kernel returned."));
    tool.annotations = hints(false, true, false, true);
    tool.line = tool_line::servers;
    tool.action = handle_action::destroy;
    tool.docs = "stops one of the caller's kernels and every process of it; files stay";
    return tool;
}

}  // namespace

const std::vector<server_tool>& handle_tool_table() {
    static const std::vector<server_tool> table{create_kernel(), list_kernels(), destroy_kernel()};
    return table;
}

tool_parameter kernel_id_parameter() {
    return optional("kernel_id", parameter_type::string, nullptr,
                    "The kernel to use, from create_kernel; default: your implicit kernel.");
}

const std::vector<server_tool>& server_tool_table() {
    // The order of the reference implementation's tools, search_tools before reset.
    static const std::vector<server_tool> table{register_mcp_server(), install_package(),
                                                execute_ipython_cell(), search_tools(), reset()};
    return table;
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
