#pragma once
// The gentools library as the host sees it: which saved actions exist in which roots, which
// mcptools modules each one imports (read from its files, never run), and the pins that say
// which version of each tool an action was written against.
//
// A tool's version is the hash of its generated module (mcptools/<server>/<tool>.py). Code
// generation is deterministic, so the hash changes exactly when the tool's name, description
// or schemas change. An action is pinned to the versions of the tools it calls when the host
// first sees it, and re-pinned whenever its files change (it was edited, presumably after a
// check). An action whose pins differ from the current modules is flagged.
//
// Pure functions over the file system (reads only); thread-safe. Kernel code can write these
// folders, so they are read as workspace/bounded_read.hpp says: no link followed (a linked
// folder or file is left out), no FIFO or device opened, each source read up to
// max_source_file_bytes; what is refused is logged and counts as missing.
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

namespace ipybox::app {

struct saved_action {
    std::string module;  // gentools.<category>.<name>
    std::filesystem::path directory;
    std::set<std::string> calls;  // "server.tool" of every mcptools module it imports
    std::string stamp;            // mtime (ns) and size of api.py and impl.py, as the kernel reads
};

// Every importable action of the roots (project first; a shadowed copy is left out).
std::vector<saved_action> scan_actions(const std::vector<std::filesystem::path>& roots);

// "server.tool" for every mcptools import in Python source (from-imports, plain imports,
// parenthesised lists).
std::set<std::string> mcptools_imports(const std::string& source);

// "server.tool" -> hash of mcptools/<server>/<tool>.py for one server's generated folder (empty
// when it does not exist yet).
std::map<std::string, std::string> module_hashes(const std::filesystem::path& mcptools,
                                                 const std::string& server);

// Pins every action's calls to `previous` (the modules before a regeneration: what an action
// saved earlier was written against; else `current`) where it has no pin yet or its files
// changed, then returns
// the flags for the kernel: {"gentools.x.y": {"tools": [...], "stamp": ...}} for actions whose
// pins differ from `current`. `pins` is {"module": {"stamp": ..., "tools": {"s.t": hash}}}.
nlohmann::json update_pins(nlohmann::json& pins, const std::vector<saved_action>& actions,
                           const std::map<std::string, std::string>& previous,
                           const std::map<std::string, std::string>& current);

// Every tool's current hash, for all servers whose tools the actions call.
std::map<std::string, std::string> current_hashes(const std::filesystem::path& mcptools,
                                                  const std::vector<saved_action>& actions);

class server_registry;

// scan_actions over `roots`, update_pins against the modules under `mcptools` (with `previous`
// overriding the versions of a regenerated server), the pins saved in `registry`; returns the
// flags (gentools_pins.cpp).
nlohmann::json pin_actions(const std::vector<std::filesystem::path>& roots,
                           const std::filesystem::path& mcptools, server_registry& registry,
                           const std::map<std::string, std::string>& previous);

// "gentools.x.y (server.tool, ...)" lines of the flagged actions in `flags`.
std::string describe_flags(const nlohmann::json& flags);

// Code written by hand into a server's generated folder (mcptools/<server>/), which
// regenerating it would delete: "<file>: def <name>" for each top-level function other than
// run() in a module, and "<file>" for each .py file that is not a generated tool module (no
// TOOL_NAME). Empty when the folder is missing or holds only what ipybox wrote.
std::vector<std::string> hand_written_additions(const std::filesystem::path& mcptools,
                                                const std::string& server);

// A server's registration as a saved action records it (mcptools/<server>/registration.json):
// the parameters as registered, where a value of `env` or `headers` without a ${VAR}
// placeholder becomes one (${<env name>}, ${<HEADER_NAME>}), so that no literal value of those
// lands in a file the kernel and other projects read. `command`, `args` and `url` are kept as
// registered (values filled from ${VAR} are redacted by the caller): a secret written literally
// into them, rather than through a placeholder, is kept too. The workspace's path in any of
// them (`/home/u/proj1`, `/home/u/proj1/data`, `--root=/home/u/proj1`) becomes
// ${IPYBOX_WORKSPACE}, which ipybox fills with the registering project's own path: an action
// saved in one project works on the next project's folders, not on the first one's.
nlohmann::json registration_record(const nlohmann::json& params,
                                   const std::filesystem::path& workspace = {});

}  // namespace ipybox::app
