#pragma once
// An MCP tool result as the kernel's tool client reads it: every content type kept, binary
// content saved as files. Pure conversion plus file writes; thread-safe (no shared state).
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string_view>

#include "ipybox/mcp/session/types.hpp"

namespace ipybox::app {

inline constexpr std::size_t max_saved_files = 100;
// The folder of the images directory that holds files from tool results, apart from plots.
inline constexpr std::string_view tool_files_folder = "outputs";

// {"text", "structured", "images", "is_error", "content"} from an MCP tool result:
// - "content": one item per block, in order: {"type": "text", "text"}; {"type": "image" |
//   "audio", "path", "mime_type"}; {"type": "resource", "uri", "mime_type", "text"} for an
//   embedded text resource, with "path" instead of "text" for a blob; {"type":
//   "resource_link", "uri", "name", "mime_type", "title", "description"} (absent members are
//   null). Blocks of other types are kept as {"type"} alone.
// - "text": the text blocks and embedded text resources joined by newlines, a resource link as
//   "[resource: URI]" (what kernel code printed before content items existed).
// - "images": the image paths (a subset of the content items, for TextResult.images).
// Images, audio and blobs are decoded and written to `images_directory`/outputs (kernel plots go
// to `images_directory` itself) as <8 hex><extension known for the MIME type, else .bin>,
// through a descriptor of `workspace` when the folder is inside it (no link the kernel planted
// is followed; workspace/directory.hpp); undecodable
// base64 leaves the item without a path. A server's answer is at most 16 MiB, but it could be
// made of a hundred thousand tiny blobs: at most max_saved_files files are written per result;
// the items past it have a null path, and "text" ends with a line saying how many. Throws
// std::system_error or workspace::unsafe_workspace_path if a file cannot be written.
nlohmann::json tool_result_json(const mcp::session::call_tool_result& result,
                                const std::filesystem::path& workspace,
                                const std::filesystem::path& images_directory);

}  // namespace ipybox::app
