#include "ipybox/mcp/transport/stdio_client_transport.hpp"

#include "child_connection.hpp"

namespace ipybox::mcp::transport {
namespace {

// The owner-facing handle: the transport contract on top of a child_connection, which outlives
// it as long as its operations need to.
class stdio_client_transport final : public transport {
  public:
    stdio_client_transport(boost::asio::io_context& io, stdio_client_options options)
        : connection_(std::make_shared<detail::child_connection>(io, std::move(options))) {}

    ~stdio_client_transport() override { connection_->abandon(); }

    std::string describe() const override { return connection_->describe(); }

  private:
    void do_start() override {
        std::weak_ptr<transport> weak = weak_from_this();
        connection_->start(
            {[weak](jsonrpc::decode_result frame) {
                 if (auto self = weak.lock()) {
                     static_cast<stdio_client_transport&>(*self).deliver(std::move(frame));
                 }
             },
             [weak](close_info info) {
                 if (auto self = weak.lock()) {
                     static_cast<stdio_client_transport&>(*self).report_closed(std::move(info));
                 }
             },
             [weak] {
                 if (auto self = weak.lock()) {
                     static_cast<const stdio_client_transport&>(*self).report_activity();
                 }
             }});
    }

    void do_send(jsonrpc::message msg) override {
        std::string line = jsonrpc::encode(msg);
        line.push_back('\n');
        connection_->send(std::move(line));
    }

    void do_close() override { connection_->close(); }

    std::shared_ptr<detail::child_connection> connection_;
};

}  // namespace

std::shared_ptr<transport> make_stdio_client_transport(boost::asio::io_context& io,
                                                       stdio_client_options options) {
    return std::make_shared<stdio_client_transport>(io, std::move(options));
}

}  // namespace ipybox::mcp::transport
