#pragma once
// Building a child's environment explicitly: nothing of the parent's environment reaches a child
// unless it is on an allowlist or passed on purpose. Pure functions.
#include <map>
#include <string>
#include <vector>

namespace ipybox::process {

using environment_map = std::map<std::string, std::string>;

// Variables a kernel or MCP server normally needs to behave like a program started from a shell:
// PATH, HOME, USER, LOGNAME, SHELL, LANG, LC_ALL, LC_CTYPE, TZ, TMPDIR, TERM.
const std::vector<std::string>& default_allowlist();

// The entries of `parent` whose names are in `allowlist`. Values that look like exported bash
// functions ("() {") are left out.
environment_map filter_environment(const environment_map& parent,
                                   const std::vector<std::string>& allowlist);

// Reads `environ` into a map. Only cli/ and tests call this; modules receive maps.
environment_map current_environment();

}  // namespace ipybox::process
