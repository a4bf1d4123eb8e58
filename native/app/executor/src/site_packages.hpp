#pragma once
// Moves what pip installed into a private staging folder (outside the workspace) into the
// workspace's site-packages, through a descriptor of the workspace (workspace/directory.hpp):
// pip itself follows links, so it never writes into the workspace directly.
//
// Top-level folders replace the folder of the same name (as pip --target --upgrade does), each
// in one atomic exchange; `bin/` is merged file by file; top-level files are replaced
// atomically. A link planted at the target, on the way to it, or at a name being replaced is
// refused with workspace::unsafe_workspace_path naming it; nothing outside is touched.
// Links inside the staged tree are copied as links. Not thread-safe for the same target.
#include <filesystem>

namespace ipybox::app {

void publish_site_packages(const std::filesystem::path& staging,
                           const std::filesystem::path& workspace,
                           const std::filesystem::path& relative_target);

}  // namespace ipybox::app
