#pragma once
// Where a kernel's five channels live and how its messages are signed: the content of a Jupyter
// connection file. ipc:// is the default (it works unchanged when the kernel runs in a
// network-isolated sandbox); tcp on 127.0.0.1 is available.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

namespace ipybox::jupyter {

enum class channel { shell, iopub, stdin_channel, control, heartbeat };

const char* to_string(channel which);

struct connection_info {
    std::string transport = "ipc";  // "ipc" or "tcp"
    // ipc: a path prefix; channel sockets are "<ip>-<port>". tcp: the address, always 127.0.0.1.
    std::string ip;
    int shell_port = 1;
    int iopub_port = 2;
    int stdin_port = 3;
    int control_port = 4;
    int hb_port = 5;
    std::string key;
    std::string signature_scheme = "hmac-sha256";
    std::string kernel_name = "python3";

    // "ipc:///dir/k-1" or "tcp://127.0.0.1:53211".
    std::string endpoint(channel which) const;
    int port(channel which) const;

    nlohmann::json to_json() const;
    // Throws std::invalid_argument naming the missing or malformed field.
    static connection_info from_json(const nlohmann::json& value);

    // ipc sockets `<prefix>-1` .. `<prefix>-5`, with a fresh random key.
    static connection_info make_ipc(const std::filesystem::path& prefix);
    // tcp on 127.0.0.1 with five currently free ports (there is a small window in which another
    // process could take one; the kernel then fails to start and says so).
    static connection_info make_tcp();
};

}  // namespace ipybox::jupyter
