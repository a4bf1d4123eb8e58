#pragma once
// The kernel's side of the Jupyter channels, made of raw ZeroMQ sockets speaking our wire module:
// the fake kernel that the jupyter tests drive directly and fake_kernel_main.cpp runs as a
// process for the kernel tests. Binds the channels it is asked for; IOPub is an XPUB socket, so
// the kernel learns when a subscriber has joined. Not thread-safe: one thread uses the sockets.
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include "ipybox/jupyter/connection_info.hpp"
#include "ipybox/jupyter/wire.hpp"

namespace ipybox::testing {

inline void send_frames(zmq::socket_t& socket, const std::vector<std::string>& frames) {
    for (std::size_t i = 0; i < frames.size(); ++i) {
        socket.send(zmq::buffer(frames[i]),
                    i + 1 < frames.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
    }
}

struct fake_kernel_sockets {
    jupyter::connection_info info;
    zmq::context_t context{1};
    zmq::socket_t shell{context, zmq::socket_type::router};
    zmq::socket_t iopub{context, zmq::socket_type::xpub};
    zmq::socket_t control{context, zmq::socket_type::router};
    zmq::socket_t heartbeat{context, zmq::socket_type::rep};

    fake_kernel_sockets(jupyter::connection_info connection,
                        std::initializer_list<jupyter::channel> bound)
        : info(std::move(connection)) {
        for (auto which : bound) {
            auto& socket = socket_of(which);
            socket.set(zmq::sockopt::linger, 0);
            socket.bind(info.endpoint(which));
        }
    }

    zmq::socket_t& socket_of(jupyter::channel which) {
        switch (which) {
            case jupyter::channel::shell:
                return shell;
            case jupyter::channel::iopub:
                return iopub;
            case jupyter::channel::control:
                return control;
            case jupyter::channel::heartbeat:
                return heartbeat;
            default:
                throw std::invalid_argument("the fake kernel has no stdin channel");
        }
    }

    // Signs with `key` (the connection's own key unless a test forges one).
    void publish(const jupyter::message& msg, const std::optional<std::string>& key = {}) {
        send_frames(iopub, jupyter::encode(msg, jupyter::signer(key.value_or(info.key))));
    }

    // A reply to `request` on the channel it came from (its identities route it back).
    void reply(zmq::socket_t& socket, const jupyter::message& request, const std::string& type,
               nlohmann::json content) {
        send_frames(socket, jupyter::encode(child_of(request, type, std::move(content)),
                                            jupyter::signer(info.key)));
    }

    // A message with `request` as its parent, as the kernel sends on IOPub and in replies.
    static jupyter::message child_of(const jupyter::message& request, const std::string& type,
                                     nlohmann::json content) {
        auto msg = jupyter::make_request(type, std::move(content), "fake-kernel");
        msg.parent_header = request.header;
        msg.identities = request.identities;
        return msg;
    }

    // The next message on `socket`, if one is waiting and carries a valid signature.
    std::optional<jupyter::message> receive(zmq::socket_t& socket) {
        std::vector<zmq::message_t> parts;
        if (!zmq::recv_multipart(socket, std::back_inserter(parts), zmq::recv_flags::dontwait)) {
            return std::nullopt;
        }
        std::vector<std::string> frames;
        for (auto& part : parts) frames.push_back(part.to_string());
        return jupyter::decode(std::move(frames), jupyter::signer(info.key)).msg;
    }
};

}  // namespace ipybox::testing
