#pragma once
// What execute_ipython_cell returns: the output text clipped to max_output_chars (beginning AND
// end kept, since tracebacks and final values sit at the end), images as MCP image content plus
// their paths (at most max_images_per_result of them, the first and the last, with the full list
// saved like a clipped text), and errors as isError results that say what happened to the
// kernel's state.
#include <filesystem>
#include <functional>
#include <string>

#include "ipybox/code_executor.hpp"
#include "ipybox/mcp/session/types.hpp"

namespace ipybox::app {

// Images one result lists, at most: the first half and the last half of that number. Every
// image stays a file; the ones left out are counted and the full list saved (README).
inline constexpr std::size_t max_images_per_result = 20;
// Bytes of images sent inline in one result, at most: the others are listed as files only.
inline constexpr std::size_t max_inline_image_bytes = 8 * 1024 * 1024;

struct cell_output_options {
    std::size_t max_chars = 5000;  // Unicode code points
    // Saves the full text when it had to be clipped (or the full list of images when some were
    // left out) and returns where it went.
    std::function<std::filesystem::path(const std::string& full_text)> save_full_output;
    // Images below it are read through its descriptor, no link followed (bounded_read.hpp).
    std::filesystem::path workspace;
    // False: images are listed by their paths only, none is sent as image content.
    bool inline_images = true;
};

// `text` if it fits; else its first 40% and last 60% of `max_chars` characters around a line
// saying how many characters were left out and where the full text is (core::clip_characters,
// core/clipping.hpp). Never splits a UTF-8 character. Pure apart from save_full_output.
std::string clip_output(const std::string& text, const cell_output_options& options);

mcp::session::call_tool_result cell_result(const code_execution_result& result,
                                           const cell_output_options& options);
// isError, the output before the failure and the failure's message after its kind
// ("TimeoutError: ", "KernelDied: ", "KernelStartError: "; an exception's message names its type).
mcp::session::call_tool_result cell_error(const code_execution_failure& failure,
                                          const cell_output_options& options);

}  // namespace ipybox::app
