#include "ipybox/mcp/transport/stdio_server_transport.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <cerrno>
#include <cstring>
#include <deque>
#include <mutex>
#include <optional>

#include "ignore_sigpipe.hpp"
#include "ipybox/core/log.hpp"

namespace ipybox::mcp::transport {
namespace {

namespace asio = boost::asio;
using descriptor = asio::posix::stream_descriptor;

constexpr std::size_t read_chunk = 64 * 1024;
constexpr std::size_t write_chunk = 4096;  // a pipe that polls writable takes this without blocking

// A descriptor for waiting on `fd`'s readiness: a duplicate, so that closing it leaves our stdin
// and stdout open. Its file status flags are never touched (no O_NONBLOCK).
std::unique_ptr<descriptor> watcher(asio::strand<asio::io_context::executor_type>& strand, int fd) {
    const int copy = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (copy < 0) {
        throw transport_error(std::string("cannot watch descriptor ") + std::to_string(fd) + ": " +
                              std::strerror(errno));
    }
    return std::make_unique<descriptor>(strand, copy);
}

// Files and /dev/null cannot be waited on (epoll refuses them), and never block: such a wait
// ends with operation_not_supported, and the I/O goes ahead.
bool ready_or_unwaitable(const boost::system::error_code& error) {
    return !error || error == asio::error::operation_not_supported;
}

class stdio_server_transport final : public transport {
  public:
    stdio_server_transport(asio::io_context& io, stdio_server_options options)
        : io_(io),
          strand_(asio::make_strand(io)),
          options_(options),
          log_(core::logger("mcp")),
          framer_(options.max_line_bytes) {}

    ~stdio_server_transport() override = default;  // the waits hold a weak reference only

    std::string describe() const override { return "stdio server transport"; }

  private:
    void do_start() override {
        ignore_sigpipe_once();
        input_ = watcher(strand_, options_.input_fd);
        output_ = watcher(strand_, options_.output_fd);
        // Waiting on stdin is work too, but say so until on_close: io_context::run() keeps
        // serving until the client disconnects.
        work_.emplace(asio::make_work_guard(io_));
        asio::post(strand_, [weak = weak_from_this()] {
            if (auto self = weak.lock()) as_me(self).wait_input();
        });
    }

    static stdio_server_transport& as_me(const std::shared_ptr<transport>& self) {
        return static_cast<stdio_server_transport&>(*self);
    }

    void do_send(jsonrpc::message msg) override {
        std::string line = jsonrpc::encode(msg);
        line.push_back('\n');
        {
            std::lock_guard lock(mutex_);
            queue_.push_back(std::move(line));
        }
        asio::post(strand_, [weak = weak_from_this()] {
            if (auto self = weak.lock()) as_me(self).write_next();
        });
    }

    void do_close() override {
        asio::post(strand_, [weak = weak_from_this()] {
            if (auto self = weak.lock()) {
                auto& me = as_me(self);
                me.stop_reading();
                me.finish_after_writes({"closed by the server", true, {}, {}});
            }
        });
    }

    // On the strand from here on.

    void stop_reading() {
        reading_ = false;
        boost::system::error_code ignored;
        if (input_) input_->close(ignored);
    }

    // What is queued is written first, then `info` is reported: replies to the last requests
    // still reach a client that closed its end of our stdin but keeps reading our stdout.
    void finish_after_writes(close_info info) {
        if (closing_) return;
        closing_ = true;
        closing_info_ = std::move(info);
        write_next();
    }

    void report_and_release(close_info info) {
        if (reported_) return;
        reported_ = true;
        stop_reading();
        boost::system::error_code ignored;
        if (output_) output_->close(ignored);
        report_closed(std::move(info));
        work_.reset();
    }

    void wait_input() {
        if (!reading_) return;
        input_->async_wait(descriptor::wait_read,
                           [weak = weak_from_this()](const boost::system::error_code& error) {
                               auto self = weak.lock();
                               if (!self) return;
                               auto& me = as_me(self);
                               if (!me.reading_) return;
                               if (!ready_or_unwaitable(error)) {
                                   me.input_failed(error.message());
                                   return;
                               }
                               me.read_input();
                           });
    }

    void read_input() {
        const auto n = ::read(options_.input_fd, buffer_.data(), buffer_.size());
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
            wait_input();
            return;
        }
        if (n < 0) {
            input_failed(std::strerror(errno));
            return;
        }
        const line_sink sink{
            [this](std::string_view line) { deliver(jsonrpc::decode(line)); },
            [this](std::size_t limit) {
                log_->error("stdin: skipped a message longer than {} bytes", limit);
                deliver(jsonrpc::decode_failure{
                    {jsonrpc::error_code::parse_error,
                     "Parse error: message longer than " + std::to_string(limit) + " bytes",
                     nullptr},
                    std::nullopt,
                    true});
            },
            nullptr, nullptr};
        if (n == 0) {
            framer_.finish(sink);
            reading_ = false;
            // Behind the frames just delivered, so that their replies are queued first.
            asio::post(strand_, [weak = weak_from_this()] {
                if (auto self = weak.lock()) {
                    as_me(self).finish_after_writes({"stdin reached end of file", false, {}, {}});
                }
            });
            return;
        }
        framer_.feed(std::string_view(buffer_.data(), static_cast<std::size_t>(n)), sink);
        // Handlers of the frames just delivered run first, then the next read.
        asio::post(strand_, [weak = weak_from_this()] {
            if (auto self = weak.lock()) as_me(self).wait_input();
        });
    }

    void input_failed(const std::string& why) {
        log_->error("stdio server transport: reading stdin failed: {}", why);
        reading_ = false;
        finish_after_writes({"reading stdin failed: " + why, false, {}, {}});
    }

    // One message at a time, in chunks no larger than a pipe takes without blocking.
    void write_next() {
        if (writing_ || reported_) return;
        if (pending_.empty()) {
            std::lock_guard lock(mutex_);
            if (!queue_.empty()) {
                pending_ = std::move(queue_.front());
                queue_.pop_front();
                written_ = 0;
            }
        }
        if (pending_.empty()) {
            if (closing_) report_and_release(closing_info_);
            return;
        }
        writing_ = true;
        output_->async_wait(descriptor::wait_write,
                            [weak = weak_from_this()](const boost::system::error_code& error) {
                                auto self = weak.lock();
                                if (!self) return;
                                auto& me = as_me(self);
                                me.writing_ = false;
                                if (me.reported_) return;
                                if (!ready_or_unwaitable(error)) {
                                    me.output_failed(error.message());
                                    return;
                                }
                                me.write_some();
                            });
    }

    void write_some() {
        const std::string_view rest = std::string_view(pending_).substr(written_);
        const auto n = ::write(options_.output_fd, rest.data(), std::min(rest.size(), write_chunk));
        if (n < 0 && errno != EINTR && errno != EAGAIN) {
            output_failed(std::strerror(errno));
            return;
        }
        if (n > 0) written_ += static_cast<std::size_t>(n);
        if (written_ == pending_.size()) pending_.clear();
        write_next();
    }

    void output_failed(const std::string& why) {
        log_->error("stdio server transport: writing stdout failed: {}", why);
        report_and_release({"writing stdout failed: " + why, false, {}, {}});
    }

    asio::io_context& io_;
    asio::strand<asio::io_context::executor_type> strand_;
    std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work_;
    stdio_server_options options_;
    std::shared_ptr<spdlog::logger> log_;

    // The strand's alone.
    line_framer framer_;
    std::unique_ptr<descriptor> input_;
    std::unique_ptr<descriptor> output_;
    std::array<char, read_chunk> buffer_{};
    bool reading_ = true;
    bool writing_ = false;
    std::string pending_;  // the message being written
    std::size_t written_ = 0;
    bool closing_ = false;
    bool reported_ = false;
    close_info closing_info_;

    std::mutex mutex_;  // guards queue_ (filled from any thread)
    std::deque<std::string> queue_;
};

}  // namespace

std::shared_ptr<transport> make_stdio_server_transport(boost::asio::io_context& io,
                                                       stdio_server_options options) {
    return std::make_shared<stdio_server_transport>(io, options);
}

}  // namespace ipybox::mcp::transport
