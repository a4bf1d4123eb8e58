#include "ipybox/mcp/transport/stdio_client_transport.hpp"
#include "ipybox/process/environment.hpp"

namespace ipybox::mcp::transport {

environment_map child_environment(const stdio_client_options& options) {
    auto result = options.inherited ? *options.inherited
                                    : process::filter_environment(process::current_environment(),
                                                                  process::default_allowlist());
    for (const auto& [name, value] : options.env) result[name] = value;
    return result;
}

}  // namespace ipybox::mcp::transport
