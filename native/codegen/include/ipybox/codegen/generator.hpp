#pragma once
// The code generator: the tools of one MCP server in, the files of a Python package out.
//
// Pure and deterministic: no file, network or environment access, and the same input always gives
// byte-identical output. Thread-safe (no shared state). Every string that comes from the server is
// emitted only as an escaped Python literal or a sanitised ASCII identifier, so importing a
// generated module never runs server-supplied code.
#include <string>
#include <string_view>
#include <vector>

#include "ipybox/codegen/tool_descriptor.hpp"

namespace ipybox::codegen {

struct generated_file {
    std::string relative_path;  // "<server>/__init__.py", "<server>/<module>.py"
    std::string content;        // UTF-8 Python source, '\n' line endings, ends with '\n'
};

// Which module serves which MCP tool (server order).
struct tool_module {
    std::string tool_name;    // original MCP name
    std::string module_name;  // Python module in the package, unique, never "__init__"
    // Parts of the tool's schemas that the module types more loosely than the schema says
    // (`Any`, which still sends the caller's value unchanged), one sentence each; also listed
    // in the module docstring. Empty when every part is typed faithfully.
    std::vector<std::string> notes;
    // Validation keywords of the input schema that `Params` does not check (at least somewhere
    // in the schema), sorted: the server alone refuses values that break them. Also listed in
    // the module docstring as "checked by the server only". Every other keyword is checked
    // before a call: a value that breaks it raises pydantic's ValidationError.
    std::vector<std::string> server_only;
};

struct generated_package {
    std::string server_name;
    std::vector<generated_file> files;  // __init__.py first, then one module per tool, server order
    std::vector<tool_module> modules;
};

// Generates `<server_name>/__init__.py` and one module per tool. Each tool module defines
// SERVER_NAME, TOOL_NAME, its models (`Params`, and `Result` when the output schema is an object
// with properties) and `run(params)`; the modules import only `typing`, `enum` and
// `ipybox_runtime`. Schemas the generator cannot type faithfully degrade to `Any` with a note
// (tool_module::notes), never to an error or a module that fails to import. Throws
// invalid_server_name (see naming.hpp) for a bad `server_name`.
generated_package generate_package(std::string_view server_name,
                                   const std::vector<tool_descriptor>& tools);

}  // namespace ipybox::codegen
