#include "ipybox/jupyter/connection_info.hpp"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>
#include <system_error>
#include <vector>

#include "ipybox/core/random.hpp"

namespace ipybox::jupyter {

const char* to_string(channel which) {
    switch (which) {
        case channel::shell:
            return "shell";
        case channel::iopub:
            return "iopub";
        case channel::stdin_channel:
            return "stdin";
        case channel::control:
            return "control";
        case channel::heartbeat:
            return "hb";
    }
    return "unknown";
}

int connection_info::port(channel which) const {
    switch (which) {
        case channel::shell:
            return shell_port;
        case channel::iopub:
            return iopub_port;
        case channel::stdin_channel:
            return stdin_port;
        case channel::control:
            return control_port;
        case channel::heartbeat:
            return hb_port;
    }
    return 0;
}

std::string connection_info::endpoint(channel which) const {
    if (transport == "ipc") return "ipc://" + ip + "-" + std::to_string(port(which));
    return transport + "://" + ip + ":" + std::to_string(port(which));
}

nlohmann::json connection_info::to_json() const {
    return {{"transport", transport},
            {"ip", ip},
            {"shell_port", shell_port},
            {"iopub_port", iopub_port},
            {"stdin_port", stdin_port},
            {"control_port", control_port},
            {"hb_port", hb_port},
            {"key", key},
            {"signature_scheme", signature_scheme},
            {"kernel_name", kernel_name}};
}

connection_info connection_info::from_json(const nlohmann::json& value) {
    if (!value.is_object()) throw std::invalid_argument("connection info must be a JSON object");
    connection_info info;
    const auto take = [&](const char* name, auto& slot) {
        const auto it = value.find(name);
        if (it == value.end())
            throw std::invalid_argument(std::string("connection info lacks ") + name);
        try {
            it->get_to(slot);
        } catch (const nlohmann::json::exception&) {
            throw std::invalid_argument(std::string("connection info field ") + name +
                                        " has the wrong type");
        }
    };
    take("transport", info.transport);
    take("ip", info.ip);
    take("shell_port", info.shell_port);
    take("iopub_port", info.iopub_port);
    take("stdin_port", info.stdin_port);
    take("control_port", info.control_port);
    take("hb_port", info.hb_port);
    take("key", info.key);
    if (value.contains("signature_scheme")) take("signature_scheme", info.signature_scheme);
    if (info.transport != "ipc" && info.transport != "tcp") {
        throw std::invalid_argument("connection info transport must be ipc or tcp, not " +
                                    info.transport);
    }
    if (info.signature_scheme != "hmac-sha256") {
        throw std::invalid_argument("unsupported signature scheme " + info.signature_scheme);
    }
    return info;
}

connection_info connection_info::make_ipc(const std::filesystem::path& prefix) {
    connection_info info;
    info.transport = "ipc";
    info.ip = prefix.string();
    info.key = core::random_hex(32);
    return info;
}

connection_info connection_info::make_tcp() {
    connection_info info;
    info.transport = "tcp";
    info.ip = "127.0.0.1";
    info.key = core::random_hex(32);
    // Hold all five sockets open while choosing so the five ports differ.
    std::vector<int> sockets;
    std::vector<int> ports;
    for (int i = 0; i < 5; ++i) {
        const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0) throw std::system_error(errno, std::generic_category(), "socket");
        sockets.push_back(fd);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        address.sin_port = 0;
        socklen_t length = sizeof address;
        if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
            ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
            for (const int s : sockets) ::close(s);
            throw std::system_error(errno, std::generic_category(), "choosing a free tcp port");
        }
        ports.push_back(ntohs(address.sin_port));
    }
    for (const int s : sockets) ::close(s);
    info.shell_port = ports[0];
    info.iopub_port = ports[1];
    info.stdin_port = ports[2];
    info.control_port = ports[3];
    info.hb_port = ports[4];
    return info;
}

}  // namespace ipybox::jupyter
