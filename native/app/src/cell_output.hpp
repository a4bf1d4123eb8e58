#pragma once
// What execute_ipython_cell returns: the output text clipped to max_output_chars (beginning AND
// end kept, since tracebacks and final values sit at the end), images as MCP image content plus
// their paths, and errors as isError results that say what happened to the kernel's state.
#include <filesystem>
#include <functional>
#include <string>

#include "ipybox/code_executor.hpp"
#include "ipybox/mcp/session/types.hpp"

namespace ipybox::app {

struct cell_output_options {
    std::size_t max_chars = 5000;  // Unicode code points
    // Saves the full text when it had to be clipped and returns where it went.
    std::function<std::filesystem::path(const std::string& full_text)> save_full_output;
};

// `text` if it fits; else its first 40% and last 60% of `max_chars` characters around a line
// saying how many characters were left out and where the full text is. Never splits a UTF-8
// character. Pure apart from save_full_output.
std::string clip_output(const std::string& text, const cell_output_options& options);

mcp::session::call_tool_result cell_result(const code_execution_result& result,
                                           const cell_output_options& options);
mcp::session::call_tool_result cell_error(const code_execution_error& error,
                                          const cell_output_options& options);

}  // namespace ipybox::app
