#pragma once
// Finding programs the way a shell would, on a PATH given explicitly (not ours).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ipybox::process {

// `command` itself if it contains a '/', else the first executable regular file
// `<dir>/<command>` for dir in `path_variable` (colon-separated; an empty entry means ".").
// nullopt when none is found. Touches the file system only to look.
std::optional<std::filesystem::path> find_executable(const std::string& command,
                                                     const std::string& path_variable);

// True when the real path of `path` (links resolved) is one of `roots` or lies below one (each
// root compared as it is and with its own links resolved).
bool lies_within(const std::filesystem::path& path,
                 const std::vector<std::filesystem::path>& roots);

// `path_variable` without the entries where a program could have been planted by whoever can
// write one of `untrusted_roots` (a sandboxed kernel, its workspace): entries inside a root (an
// activated `.venv/bin`), and empty or relative ones (the current directory, wherever that is).
// What remains keeps its order. Resolves links to decide.
std::string path_outside(const std::string& path_variable,
                         const std::vector<std::filesystem::path>& untrusted_roots);

}  // namespace ipybox::process
