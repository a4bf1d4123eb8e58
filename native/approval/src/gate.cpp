#include "ipybox/approval/gate.hpp"

namespace ipybox::approval {

std::string tool_call::describe(std::size_t max_length) const {
    std::string args;
    if (arguments.is_object()) {
        for (const auto& [key, value] : arguments.items()) {
            if (!args.empty()) args += ", ";
            args +=
                key + "=" + value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        }
    } else if (!arguments.is_null()) {
        args = arguments.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    if (args.size() > max_length) args = args.substr(0, max_length) + "...";
    return server_name + "." + tool_name + "(" + args + ")";
}

}  // namespace ipybox::approval
