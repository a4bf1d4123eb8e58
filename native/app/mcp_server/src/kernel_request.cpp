#include "kernel_request.hpp"

#include "server_tool_support.hpp"

namespace ipybox::app {
namespace {

using detail::argument_error;

std::filesystem::path checked_subfolder(const std::string& text) {
    if (text.empty()) return {};
    if (text.size() > 1024 || text.find('\0') != std::string::npos) {
        throw argument_error("\"workspace\" must be a relative folder name such as 'agent1'");
    }
    const std::filesystem::path path(text);
    if (path.is_absolute() || path.has_root_name() || path.has_root_directory()) {
        throw argument_error("\"workspace\" must be relative to the server's workspace, not " +
                             text);
    }
    std::filesystem::path clean;
    std::size_t parts = 0;
    for (const auto& part : path) {
        const auto name = part.string();
        if (name.empty()) continue;  // a trailing or doubled slash
        if (name.front() == '.' || name.size() > 100 || ++parts > 16) {
            throw argument_error(
                "\"workspace\" must be plain folder names (none starting with '.', such as '..', "
                "at most 16 of at most 100 bytes), not " +
                text);
        }
        clean /= name;
    }
    return clean;
}

}  // namespace

kernel_request read_kernel_request(const nlohmann::json& arguments,
                                   const process::resource_limits& server) {
    kernel_request request;
    request.workspace = checked_subfolder(arguments.value("workspace", std::string()));
    if (const auto& sandbox = arguments.at("sandbox"); sandbox.is_boolean()) {
        request.sandbox = sandbox.get<bool>();
    }
    request.limits = server;
    request.fast_reset = arguments.value("fast_reset", false) == true;
    if (const auto& memory = arguments.at("memory"); memory.is_string()) {
        std::uint64_t bytes = 0;
        try {
            bytes = process::parse_bytes(memory.get<std::string>());
        } catch (const std::invalid_argument&) {
            throw argument_error("\"memory\" must be a size such as '512M' or '2G', not " +
                                 memory.dump());
        }
        if (bytes == 0 || (server.memory_bytes && bytes > *server.memory_bytes)) {
            throw argument_error("\"memory\" must be more than 0" +
                                 (server.memory_bytes
                                      ? " and at most the server's limit, " +
                                            process::describe_bytes(*server.memory_bytes)
                                      : std::string()));
        }
        request.limits.memory_bytes = bytes;
    }
    if (const auto& cpu = arguments.at("cpu_seconds"); cpu.is_number()) {
        const auto seconds = cpu.get<double>();
        if (server.cpu_seconds && seconds > static_cast<double>(*server.cpu_seconds)) {
            throw argument_error("\"cpu_seconds\" must be at most the server's limit, " +
                                 std::to_string(*server.cpu_seconds));
        }
        request.limits.cpu_seconds = static_cast<std::uint64_t>(seconds);
    }
    return request;
}

}  // namespace ipybox::app
