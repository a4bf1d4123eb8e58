#pragma once
// Adding what a saved code action needs (MCP servers, packages) on behalf of kernel code that
// cannot (POST /dependencies, see routes.hpp). The tool server checks the request's shape and
// asks the approval gate; a dependency_adder, implemented by the front end that owns the
// project's registrations (`ipybox mcp`), does the work. Everything in a request comes from
// kernel code and is hostile until checked.
#include <cstddef>
#include <functional>
#include <string>

#include "ipybox/approval/request.hpp"

namespace ipybox::toolserver {

inline constexpr std::size_t max_dependency_servers = 16;
inline constexpr std::size_t max_dependency_packages = 32;
inline constexpr std::size_t max_package_spec_bytes = 4096;  // as install_package takes them

struct dependency_outcome {
    bool added = false;
    std::string report;  // what was done, or why not (one line per server and package)
};

using dependency_handler = std::function<void(dependency_outcome)>;

class dependency_adder {
  public:
    virtual ~dependency_adder() = default;
    // Starts adding `what` (already approved) and returns; `done` gets the outcome once, from
    // any thread, possibly after the adder is gone (what it runs must not need the adder).
    // Must not block: registering a server and pip take long.
    virtual void add(const approval::add_dependencies& what, dependency_handler done) = 0;
    // Why `what` (of a valid shape) cannot be granted here, or "" when it can: asked before the
    // person is, so that no question offers what would replace the user's own set-up (a server
    // registered under the same name with other parameters). May read files; must not block for
    // long.
    virtual std::string refusal(const approval::add_dependencies& what) const = 0;
    // Fills in what only the host knows for the person's question (add_dependencies::project
    // and outside_project), after refusal() found nothing. May read files; must not block for
    // long. By default adds nothing.
    virtual void annotate(approval::add_dependencies& /*what*/) const {}
};

// Why `what` cannot be asked about (nothing to add, too many items, a server name that is not
// an ASCII identifier or is a keyword or "ipybox", parameters that are not an object, a package
// spec that is empty, of several lines, a pip option or longer than max_package_spec_bytes), or
// "" when its shape is fine.
std::string dependencies_problem(const approval::add_dependencies& what);

}  // namespace ipybox::toolserver
