#include "ipybox/mcp/transport/memory_transport.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <deque>

namespace ipybox::mcp::transport {
namespace {

class memory_transport final : public transport {
  public:
    memory_transport(std::string name,
                     boost::asio::strand<boost::asio::io_context::executor_type> strand)
        : strand_(std::move(strand)), name_(std::move(name)) {}

    void link(const std::shared_ptr<memory_transport>& peer) { peer_ = peer; }

    std::string describe() const override { return "in-memory transport (" + name_ + ")"; }

    // Runs on the strand.
    void receive(std::string text) {
        if (!started_) {
            inbox_.push_back(std::move(text));
            return;
        }
        deliver(jsonrpc::decode(text));
    }

    void peer_closed() { report_closed({"the peer closed the connection", false, {}, {}}); }

  private:
    void do_start() override {
        boost::asio::post(strand_, [self = shared(), this] {
            started_ = true;
            while (!inbox_.empty()) {
                auto text = std::move(inbox_.front());
                inbox_.pop_front();
                deliver(jsonrpc::decode(text));
            }
            if (peer_gone_) peer_closed();
        });
    }

    void do_send(jsonrpc::message msg) override {
        auto peer = peer_.lock();
        if (!peer) throw transport_error(describe() + ": the peer is gone");
        boost::asio::post(strand_, [peer, text = jsonrpc::encode(msg)]() mutable {
            peer->receive(std::move(text));
        });
    }

    void do_close() override {
        boost::asio::post(strand_, [self = shared(), this] {
            if (auto peer = peer_.lock()) {
                if (peer->started_) {
                    peer->peer_closed();
                } else {
                    peer->peer_gone_ = true;
                }
            }
            report_closed({"closed by this side", true, {}, {}});
        });
    }

    std::shared_ptr<memory_transport> shared() {
        return std::static_pointer_cast<memory_transport>(shared_from_this());
    }

    // Both sides share one strand, so the state below is only touched on it.
    boost::asio::strand<boost::asio::io_context::executor_type> strand_;
    std::string name_;
    std::weak_ptr<memory_transport> peer_;
    std::deque<std::string> inbox_;
    bool started_ = false;
    bool peer_gone_ = false;
};

}  // namespace

std::pair<std::shared_ptr<transport>, std::shared_ptr<transport>> make_memory_pair(
    boost::asio::io_context& io) {
    auto strand = boost::asio::make_strand(io);
    auto first = std::make_shared<memory_transport>("first", strand);
    auto second = std::make_shared<memory_transport>("second", strand);
    first->link(second);
    second->link(first);
    return {first, second};
}

}  // namespace ipybox::mcp::transport
