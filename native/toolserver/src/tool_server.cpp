#include "ipybox/toolserver/tool_server.hpp"

#include <sys/stat.h>

#include <boost/asio/post.hpp>
#include <future>

#include "connection.hpp"
#include "ipybox/core/log.hpp"

namespace ipybox::toolserver {
namespace asio = boost::asio;
using local = asio::local::stream_protocol;

namespace {

void accept_next(const std::shared_ptr<detail::server_state>& state) {
    state->acceptor.async_accept([state](boost::system::error_code ec, local::socket socket) {
        if (ec == asio::error::operation_aborted || !state->acceptor.is_open()) return;
        if (ec) {
            state->log->warn("accept failed: {}", ec.message());
        } else if (state->open.size() >= state->options.max_connections) {
            state->log->warn("refusing a connection: {} already open", state->open.size());
        } else {
            auto peer = std::make_shared<detail::connection>(state, std::move(socket));
            state->open.emplace(peer.get(), peer);
            peer->start();
        }
        accept_next(state);
    });
}

// Runs `work` on the loop's thread and waits for it; at once when already there, or when the
// loop has stopped (then nothing else touches the sockets).
void on_loop(asio::io_context& io, const std::function<void()>& work) {
    if (io.stopped() || io.get_executor().running_in_this_thread()) {
        work();
        return;
    }
    std::promise<void> done;
    asio::post(io, [&] {
        work();
        done.set_value();
    });
    done.get_future().wait();
}

}  // namespace

struct tool_server::impl {
    std::shared_ptr<detail::server_state> state;
};

tool_server::tool_server(asio::io_context& io, tool_server_options options, approval::gate& gate,
                         tool_invoker& invoker, library_writer* library,
                         dependency_adder* dependencies)
    : impl_(std::make_unique<impl>()) {
    auto state = std::make_shared<detail::server_state>(io, std::move(options), gate, invoker,
                                                        library, dependencies);
    impl_->state = state;
    std::error_code ignored;
    std::filesystem::remove(state->options.socket_path, ignored);
    state->acceptor.open(local());
    state->acceptor.bind(local::endpoint(state->options.socket_path.string()));
    // The private directory already keeps others out; the mode says the same on the socket.
    ::chmod(state->options.socket_path.c_str(), 0600);
    state->acceptor.listen();
    asio::post(io, [state] { accept_next(state); });
    state->log->debug("tool server listening on {}", state->options.socket_path.string());
}

tool_server::~tool_server() {
    stop();
}

void tool_server::stop() {
    auto& state = *impl_->state;
    {
        std::lock_guard lock(state.mutex);
        if (state.stopping) return;
        state.stopping = true;
    }
    on_loop(state.io, [&state] {
        boost::system::error_code ignored;
        state.acceptor.close(ignored);
        const auto open = state.open;  // close() takes each out of the map
        for (const auto& [key, weak] : open) {
            if (auto peer = weak.lock()) peer->close();
        }
    });
    // The owner destroys the gate, the invoker and the writer after this returns.
    state.owner_sections.close_and_wait();
    std::error_code removed;
    std::filesystem::remove(state.options.socket_path, removed);
}

const std::filesystem::path& tool_server::socket_path() const {
    return impl_->state->options.socket_path;
}

std::size_t tool_server::requests_waiting() const {
    auto& state = *impl_->state;
    std::size_t waiting = 0;
    on_loop(state.io, [&] { waiting = state.budget.waiting(); });
    return waiting;
}

std::size_t request_cost_of(const tool_server_options& options, std::size_t body_bytes) {
    return detail::request_cost(body_bytes, options.max_json_values);
}

}  // namespace ipybox::toolserver
