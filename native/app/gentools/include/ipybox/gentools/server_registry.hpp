#pragma once
// Remembers which MCP servers were registered for a workspace, so that mcptools/ generated in
// an earlier session keeps working after Claude Code restarts `ipybox mcp`. The file lives
// host-side (outside the workspace, where kernel code could rewrite it) with mode 0600.
// It also keeps the pins of saved actions (gentools_library.hpp): which version of each MCP
// tool an action was written against.
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

namespace ipybox::app {

class server_registry {
  public:
    // An empty path keeps nothing.
    explicit server_registry(std::filesystem::path file);

    // The remembered servers; a missing or unreadable file gives none (logged).
    std::map<std::string, nlohmann::json> load() const;
    // Records one server and rewrites the file atomically. Failures are logged, not thrown.
    void remember(const std::string& name, const nlohmann::json& params);

    // The pins ({} when none or no file) and their replacement (logged, not thrown).
    nlohmann::json load_pins() const;
    void save_pins(const nlohmann::json& pins);

  private:
    nlohmann::json load_document() const;  // mutex_ held; {} when missing or unreadable
    void write_document(const nlohmann::json& document);  // mutex_ held

    std::filesystem::path file_;
    mutable std::mutex mutex_;
};

}  // namespace ipybox::app
