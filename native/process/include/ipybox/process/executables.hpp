#pragma once
// Finding programs the way a shell would, on a PATH given explicitly (not ours).
#include <filesystem>
#include <optional>
#include <string>

namespace ipybox::process {

// `command` itself if it contains a '/', else the first executable regular file
// `<dir>/<command>` for dir in `path_variable` (colon-separated; an empty entry means ".").
// nullopt when none is found. Touches the file system only to look.
std::optional<std::filesystem::path> find_executable(const std::string& command,
                                                     const std::string& path_variable);

}  // namespace ipybox::process
