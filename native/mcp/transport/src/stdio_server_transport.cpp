#include "ipybox/mcp/transport/stdio_server_transport.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/strand.hpp>
#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <deque>
#include <optional>
#include <thread>

#include "ipybox/core/log.hpp"

namespace ipybox::mcp::transport {
namespace {

constexpr std::size_t read_chunk = 64 * 1024;
constexpr std::size_t write_chunk = 4096;  // a pipe that polls writable takes this without blocking

class stdio_server_transport final : public transport {
  public:
    stdio_server_transport(boost::asio::io_context& io, stdio_server_options options)
        : io_(io),
          strand_(boost::asio::make_strand(io)),
          options_(options),
          framer_(options.max_line_bytes),
          log_(core::logger("mcp")) {}

    ~stdio_server_transport() override {
        {
            std::lock_guard lock(mutex_);
            abort_ = true;
        }
        poke(stop_reader_[1]);
        poke(abort_writer_[1]);
        wake_writer_.notify_all();
        if (reader_.joinable()) reader_.join();
        if (writer_.joinable()) writer_.join();
        for (int fd : {stop_reader_[0], stop_reader_[1], abort_writer_[0], abort_writer_[1]}) {
            if (fd >= 0) ::close(fd);
        }
    }

    std::string describe() const override { return "stdio server transport"; }

  private:
    void do_start() override {
        if (::pipe2(stop_reader_, O_CLOEXEC) != 0 || ::pipe2(abort_writer_, O_CLOEXEC) != 0) {
            throw transport_error(std::string("cannot create a wake-up pipe: ") +
                                  std::strerror(errno));
        }
        // Input arrives from a thread, so nothing else would keep io_context::run() going.
        work_.emplace(boost::asio::make_work_guard(io_));
        std::weak_ptr<transport> weak = weak_from_this();
        reader_ = std::thread([this, weak] { read_loop(weak); });
        writer_ = std::thread([this, weak] { write_loop(weak); });
    }

    void do_send(jsonrpc::message msg) override {
        std::string line = jsonrpc::encode(msg);
        line.push_back('\n');
        {
            std::lock_guard lock(mutex_);
            queue_.push_back(std::move(line));
        }
        wake_writer_.notify_one();
    }

    void do_close() override {
        finish_after_writes({"closed by the server", true, {}, {}});
        poke(stop_reader_[1]);
    }

    // The writer drains what is queued, then reports `info`: replies to the last requests still
    // reach a client that closed its end of our stdin but keeps reading our stdout.
    void finish_after_writes(close_info info) {
        {
            std::lock_guard lock(mutex_);
            if (closing_) return;
            closing_ = true;
            closing_info_ = std::move(info);
        }
        wake_writer_.notify_all();
    }

    // Posted behind the frames already read, so that their replies are queued first.
    void post_end_of_input(const std::weak_ptr<transport>& weak, close_info info) {
        boost::asio::post(strand_, [weak, info = std::move(info)]() mutable {
            if (auto self = weak.lock()) {
                static_cast<stdio_server_transport&>(*self).finish_after_writes(std::move(info));
            }
        });
    }

    static void poke(int fd) {
        if (fd < 0) return;
        const char byte = 1;
        [[maybe_unused]] const auto written = ::write(fd, &byte, 1);
    }

    void post_closed(const std::weak_ptr<transport>& weak, close_info info) {
        boost::asio::post(strand_, [weak, info = std::move(info)]() mutable {
            if (auto self = weak.lock()) {
                auto& me = static_cast<stdio_server_transport&>(*self);
                me.report_closed(std::move(info));
                me.work_.reset();
            }
        });
    }

    void post_frame(const std::weak_ptr<transport>& weak, jsonrpc::decode_result frame) {
        boost::asio::post(strand_, [weak, frame = std::move(frame)]() mutable {
            if (auto self = weak.lock()) {
                static_cast<stdio_server_transport&>(*self).deliver(std::move(frame));
            }
        });
    }

    // Reader thread: poll stdin and the wake-up pipe, frame, decode, post.
    void read_loop(const std::weak_ptr<transport>& weak) noexcept {
        try {
            const line_sink sink{
                [&](std::string_view line) { post_frame(weak, jsonrpc::decode(line)); },
                [&](std::size_t limit) {
                    log_->error("stdin: skipped a message longer than {} bytes", limit);
                    post_frame(weak, jsonrpc::decode_failure{{jsonrpc::error_code::parse_error,
                                                              "Parse error: message longer than " +
                                                                  std::to_string(limit) + " bytes",
                                                              nullptr},
                                                             std::nullopt,
                                                             true});
                },
                nullptr, nullptr};
            std::string buffer(read_chunk, '\0');
            while (true) {
                pollfd fds[2] = {{options_.input_fd, POLLIN, 0}, {stop_reader_[0], POLLIN, 0}};
                if (::poll(fds, 2, -1) < 0) {
                    if (errno == EINTR) continue;
                    throw std::system_error(errno, std::generic_category(), "poll(stdin)");
                }
                if (fds[1].revents != 0) return;  // close() or destruction
                const auto n = ::read(options_.input_fd, buffer.data(), buffer.size());
                if (n < 0) {
                    if (errno == EINTR || errno == EAGAIN) continue;
                    throw std::system_error(errno, std::generic_category(), "read(stdin)");
                }
                if (n == 0) {
                    framer_.finish(sink);
                    post_end_of_input(weak, {"stdin reached end of file", false, {}, {}});
                    return;
                }
                framer_.feed(std::string_view(buffer.data(), static_cast<std::size_t>(n)), sink);
            }
        } catch (const std::exception& error) {
            log_->error("stdio server transport: reading stdin failed: {}", error.what());
            post_end_of_input(
                weak, {std::string("reading stdin failed: ") + error.what(), false, {}, {}});
        }
    }

    // Writer thread: one message at a time, in chunks, interruptible by destruction.
    void write_loop(const std::weak_ptr<transport>& weak) noexcept {
        sigset_t pipe_signal;
        sigemptyset(&pipe_signal);
        sigaddset(&pipe_signal, SIGPIPE);
        pthread_sigmask(SIG_BLOCK, &pipe_signal, nullptr);
        try {
            while (true) {
                std::string line;
                {
                    std::unique_lock lock(mutex_);
                    wake_writer_.wait(lock, [&] { return abort_ || closing_ || !queue_.empty(); });
                    if (abort_) return;
                    if (queue_.empty()) {  // closing and drained
                        auto info = closing_info_;
                        lock.unlock();
                        post_closed(weak, std::move(info));
                        return;
                    }
                    line = std::move(queue_.front());
                    queue_.pop_front();
                }
                if (!write_all(line)) return;
            }
        } catch (const std::exception& error) {
            log_->error("stdio server transport: writing stdout failed: {}", error.what());
            post_closed(weak,
                        {std::string("writing stdout failed: ") + error.what(), false, {}, {}});
        }
    }

    // False when aborted; throws on write errors.
    bool write_all(std::string_view data) {
        while (!data.empty()) {
            pollfd fds[2] = {{options_.output_fd, POLLOUT, 0}, {abort_writer_[0], POLLIN, 0}};
            if (::poll(fds, 2, -1) < 0) {
                if (errno == EINTR) continue;
                throw std::system_error(errno, std::generic_category(), "poll(stdout)");
            }
            if (fds[1].revents != 0) return false;
            if ((fds[0].revents & (POLLOUT | POLLERR | POLLHUP)) == 0) continue;
            const auto n =
                ::write(options_.output_fd, data.data(), std::min(data.size(), write_chunk));
            if (n < 0) {
                if (errno == EINTR || errno == EAGAIN) continue;
                throw std::system_error(errno, std::generic_category(), "write(stdout)");
            }
            data.remove_prefix(static_cast<std::size_t>(n));
        }
        return true;
    }

    boost::asio::io_context& io_;
    boost::asio::strand<boost::asio::io_context::executor_type> strand_;
    std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work_;
    stdio_server_options options_;
    line_framer framer_;  // reader thread only
    std::shared_ptr<spdlog::logger> log_;
    int stop_reader_[2] = {-1, -1};   // written by close() and destruction
    int abort_writer_[2] = {-1, -1};  // written by destruction only: close() drains the queue
    std::thread reader_;
    std::thread writer_;

    std::mutex mutex_;
    std::condition_variable wake_writer_;
    std::deque<std::string> queue_;
    bool closing_ = false;
    close_info closing_info_;
    bool abort_ = false;
};

}  // namespace

std::shared_ptr<transport> make_stdio_server_transport(boost::asio::io_context& io,
                                                       stdio_server_options options) {
    return std::make_shared<stdio_server_transport>(io, options);
}

}  // namespace ipybox::mcp::transport
