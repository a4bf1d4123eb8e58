#pragma once
// Which folders a recorded server registration would work on outside the project it is added
// to. A saved code action records the registrations of the servers it calls; one saved before
// ipybox wrote the saving project as `${IPYBOX_WORKSPACE}`, or written by hand, names that
// project's folders literally, and registered as it is in another project the server would work
// on the first project's files. The question that offers such a registration flags these paths
// (app: approval_question.cpp), as the kernel's MissingDependencyError does (the same rule in
// ipybox_runtime/requirements.py, foreign_paths).
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ipybox::workspace {

// The absolute paths among `params`'s `command`, `cwd` and `args` (an `--option=/path` argument
// counts by its value) that lie neither in `project` nor at it, each once, in order. Left out:
// values holding a `${` placeholder (filled per project), and paths of existing regular files
// (a program or script the server runs, not a folder it works on). Paths are compared as
// written, lexically. Reads the file system only to tell files apart; never throws for odd
// shapes (anything but an object gives none).
std::vector<std::string> paths_outside_project(const nlohmann::json& params,
                                               const std::filesystem::path& project);

}  // namespace ipybox::workspace
