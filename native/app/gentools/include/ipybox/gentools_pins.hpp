#pragma once
// Which saved code actions call MCP tools whose schema changed, for callers outside `ipybox mcp`
// (`ipybox generate`). The pins live host-side in a workspace's registry file
// (server_registry); a tool's version is the hash of its generated module (see the private
// gentools_library.hpp for the rules).
//
//   auto before = ipybox::tool_versions(workspace / "mcptools", "github");
//   ... regenerate mcptools/github ...
//   auto flags = ipybox::repin_saved_actions(workspace, roots, registry, before);
//   auto text = ipybox::describe_changed_actions(flags);  // the CLI prints it on stderr
//
// Reads files only, never imports or runs an action. Thread-safe as long as no two callers
// share a registry file.
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ipybox {

// "server.tool" -> version of each module in <mcptools>/<server>/ (empty when missing).
std::map<std::string, std::string> tool_versions(const std::filesystem::path& mcptools,
                                                 const std::string& server);

// Pins the actions of <workspace>/gentools and `library_roots` (new or edited ones to the
// versions in `previous`, the modules before a regeneration, else the current ones), saves the
// pins in `registry_file` (none kept when it is empty), and returns the flags of the actions
// whose pinned versions differ from the current modules:
// {"gentools.x.y": {"tools": ["server.tool", ...], "stamp": ...}}.
nlohmann::json repin_saved_actions(const std::filesystem::path& workspace,
                                   const std::vector<std::filesystem::path>& library_roots,
                                   const std::filesystem::path& registry_file,
                                   const std::map<std::string, std::string>& previous = {});

// One line per flagged action: "  gentools.x.y (calls server.tool, ...)\n".
std::string describe_changed_actions(const nlohmann::json& flags);

}  // namespace ipybox
