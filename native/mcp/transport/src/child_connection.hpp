#pragma once
// The machinery behind the stdio client transport (private to the transport module): one child
// process, its three pipes, its exit, and the shutdown sequence.
//
// It is kept alive by its own pending operations, not by the transport that owns it: a close()
// runs to its end even if the transport is dropped, and destroying the io_context destroys the
// pending operations and with them this object, whose destructor kills and reaps the child.
// Reports go to callbacks that hold the transport weakly.
//
// Threading: start() once; send(), close(), abandon() and describe() from any thread; everything
// else runs on a strand of the io_context.
#include <array>
#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "ipybox/core/log.hpp"
#include "ipybox/mcp/transport/stdio_client_transport.hpp"
#include "ipybox/process/exit_status.hpp"

namespace ipybox::mcp::transport::detail {

class child_connection : public std::enable_shared_from_this<child_connection> {
  public:
    struct callbacks {
        std::function<void(jsonrpc::decode_result)> on_frame;
        std::function<void(close_info)> on_end;  // once, after the child was reaped
        std::function<void()> on_activity;       // a chunk left a message in transit
    };

    child_connection(boost::asio::io_context& io, stdio_client_options options);
    ~child_connection();

    child_connection(const child_connection&) = delete;
    child_connection& operator=(const child_connection&) = delete;

    // Spawns the child. Throws transport_error (command not found, cannot start).
    void start(callbacks report);
    // Queues one encoded line for the child's stdin.
    void send(std::string line);
    // Orderly shutdown: stdin close, grace, SIGTERM, grace, SIGKILL.
    void close();
    // The owner is gone without close(): kill the child now.
    void abandon();

    std::string describe() const;

  private:
    using strand_type = boost::asio::strand<boost::asio::io_context::executor_type>;

    template <class Function>
    void run_safely(Function&& function) noexcept;
    template <class Function>
    auto on_strand(Function function);

    void write_next();
    void read_stdout();
    void read_stderr();
    void on_stdout_line(std::string_view line);
    void on_stdout_oversized(std::size_t line_bytes);
    void on_stderr_line(std::string_view line);
    void on_stdout_end();
    void watch_exit();
    void reap(bool blocking_allowed);
    void begin_shutdown(const std::string& why);
    void shutdown_step(int signal, std::chrono::milliseconds wait);
    void finish();

    boost::asio::io_context& io_;
    strand_type strand_;
    stdio_client_options options_;
    std::shared_ptr<spdlog::logger> log_;
    std::atomic<int> pid_{-1};
    int exit_fd_ = -1;  // from spawn until watch_exit() hands it to exit_watch_
    std::atomic<bool> close_called_{false};

    // Everything below is touched on the strand only (or before start() returns).
    callbacks report_;
    std::unique_ptr<boost::asio::posix::stream_descriptor> stdin_;
    std::unique_ptr<boost::asio::posix::stream_descriptor> stdout_;
    std::unique_ptr<boost::asio::posix::stream_descriptor> stderr_;
    std::array<char, 64 * 1024> stdout_buffer_{};
    std::array<char, 8 * 1024> stderr_buffer_{};
    line_framer stdout_framer_;
    jsonrpc::envelope_scanner oversized_line_;  // the envelope of a line over the limit
    line_framer stderr_framer_;
    std::deque<std::string> stderr_tail_;
    std::deque<std::string> write_queue_;
    boost::asio::steady_timer shutdown_timer_;
    boost::asio::steady_timer drain_timer_;
    std::unique_ptr<boost::asio::posix::stream_descriptor> exit_watch_;
    std::unique_ptr<boost::asio::steady_timer> poll_timer_;
    std::optional<process::exit_status> exit_status_;
    bool stdin_closed_ = false;
    bool stdout_ended_ = false;
    bool stderr_ended_ = false;
    bool shutting_down_ = false;
    bool close_requested_ = false;
    bool reaped_ = false;
    bool finished_ = false;
    std::string shutdown_cause_;  // why we stopped a child nobody asked us to close
};

}  // namespace ipybox::mcp::transport::detail
