#include "ipybox/mcp/transport/stdio_client_transport.hpp"

#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/write.hpp>
#include <csignal>
#include <deque>

#include "child_spawn.hpp"
#include "ipybox/core/log.hpp"

namespace ipybox::mcp::transport {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

constexpr std::size_t stderr_line_limit = 64 * 1024;
constexpr std::size_t stderr_tail_lines = 5;
constexpr auto drain_after_exit = 500ms;    // output still in the pipe when the exit is seen
constexpr auto exit_poll_interval = 100ms;  // only without pidfd support

std::string shorten(std::string_view text, std::size_t limit = 200) {
    if (text.size() <= limit) return std::string(text);
    return std::string(text.substr(0, limit)) + "...";
}

void ignore_sigpipe_once() {
    static std::once_flag once;
    std::call_once(once, [] {
        struct sigaction current {};
        if (::sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL) {
            struct sigaction ignore {};
            ignore.sa_handler = SIG_IGN;
            ::sigaction(SIGPIPE, &ignore, nullptr);
        }
    });
}

class stdio_client_transport final : public transport {
  public:
    stdio_client_transport(asio::io_context& io, stdio_client_options options)
        : io_(io),
          strand_(asio::make_strand(io)),
          options_(std::move(options)),
          stdout_framer_(options_.max_line_bytes),
          stderr_framer_(stderr_line_limit),
          shutdown_timer_(strand_),
          drain_timer_(strand_),
          log_(core::logger("mcp")) {
        if (options_.name.empty()) options_.name = options_.command;
    }

    ~stdio_client_transport() override {
        const int pid = pid_.load();
        if (pid > 0 && !reaped_) {
            log_->warn("{}: destroyed while running; killing it", describe());
            detail::signal_child(pid, SIGKILL);
            int status = 0;
            while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
            }
        }
    }

    std::string describe() const override {
        const int pid = pid_.load();
        return "MCP server '" + options_.name + "'" +
               (pid > 0 ? " (pid " + std::to_string(pid) + ")" : std::string());
    }

  private:
    std::shared_ptr<stdio_client_transport> shared() {
        return std::static_pointer_cast<stdio_client_transport>(shared_from_this());
    }
    std::weak_ptr<stdio_client_transport> weak() { return shared(); }

    // The noexcept boundary of every handler: an unexpected exception is logged and shuts the
    // child down instead of escaping io_context::run().
    template <class Function>
    void run_safely(Function&& function) noexcept {
        try {
            function();
        } catch (const std::exception& error) {
            log_->error("{}: internal error: {}; shutting it down", describe(), error.what());
            shutdown_cause_ = std::string("internal error: ") + error.what();
            try {
                begin_shutdown("internal error");
            } catch (...) {
            }
        } catch (...) {
            log_->error("{}: unknown internal error", describe());
        }
    }

    // Wraps a handler so that it runs on the strand, safely, only while the transport is alive.
    template <class Function>
    auto guarded(Function function) {
        return asio::bind_executor(strand_, [weak = weak(), function](auto&&... args) mutable {
            if (auto self = weak.lock()) {
                self->run_safely([&] { function(*self, std::forward<decltype(args)>(args)...); });
            }
        });
    }

    void do_start() override {
        const auto environment = child_environment(current_environment(), options_.env);
        const auto path = environment.count("PATH") ? environment.at("PATH") : std::string();
        const auto executable = find_executable(options_.command, path);
        if (!executable) {
            throw transport_error("cannot start MCP server '" + options_.name + "': command '" +
                                  options_.command + "' was not found (PATH=" + path + ")");
        }
        if (options_.cwd && !std::filesystem::is_directory(*options_.cwd)) {
            throw transport_error("cannot start MCP server '" + options_.name +
                                  "': working directory " + options_.cwd->string() +
                                  " does not exist");
        }
        ignore_sigpipe_once();
        auto child = detail::spawn_child(io_, *executable, options_.args, environment, options_.cwd,
                                         "'" + options_.name + "'");
        stdin_ = std::move(child.stdin_pipe);
        stdout_ = std::move(child.stdout_pipe);
        stderr_ = std::move(child.stderr_pipe);
        pid_ = child.pid;
        log_->debug("{}: started {}", describe(), executable->string());
        asio::post(strand_, [self = shared()] {
            self->run_safely([&] {
                self->read_stdout();
                self->read_stderr();
                self->watch_exit();
            });
        });
    }

    void do_send(jsonrpc::message msg) override {
        std::string line = jsonrpc::encode(msg);
        line.push_back('\n');
        asio::post(strand_, [self = shared(), line = std::move(line)]() mutable {
            self->run_safely([&] {
                if (self->stdin_closed_) return;
                self->write_queue_.push_back(std::move(line));
                if (self->write_queue_.size() == 1) self->write_next();
            });
        });
    }

    void do_close() override {
        // Keeps the transport alive until the child is reaped, even if the owner lets go now.
        asio::post(strand_, [self = shared()] {
            self->close_requested_ = true;
            self->keep_alive_ = self;
            self->run_safely([&] { self->begin_shutdown("close requested"); });
        });
    }

    void write_next() {
        asio::async_write(*stdin_, asio::buffer(write_queue_.front()),
                          guarded([](stdio_client_transport& self,
                                     const boost::system::error_code& error, std::size_t) {
                              if (error) {
                                  self.log_->debug("{}: writing to its stdin failed: {}",
                                                   self.describe(), error.message());
                                  self.write_queue_.clear();
                                  if (!self.shutting_down_) {
                                      self.shutdown_cause_ = "its stdin could not be written";
                                  }
                                  self.begin_shutdown("its stdin is closed");
                                  return;
                              }
                              self.write_queue_.pop_front();
                              if (!self.write_queue_.empty()) self.write_next();
                          }));
    }

    void read_stdout() {
        stdout_->async_read_some(
            asio::buffer(stdout_buffer_),
            guarded([](stdio_client_transport& self, const boost::system::error_code& error,
                       std::size_t size) {
                const line_sink sink{[&self](std::string_view line) { self.on_stdout_line(line); },
                                     [&self](std::size_t limit) {
                                         self.log_->error(
                                             "{}: skipped a message longer than {} bytes on stdout",
                                             self.describe(), limit);
                                     }};
                if (!error) {
                    self.stdout_framer_.feed(std::string_view(self.stdout_buffer_.data(), size),
                                             sink);
                    self.read_stdout();
                    return;
                }
                self.stdout_framer_.finish(sink);
                self.on_stdout_end();
            }));
    }

    void on_stdout_line(std::string_view line) {
        auto frame = jsonrpc::decode(line);
        if (const auto* failure = std::get_if<jsonrpc::decode_failure>(&frame);
            failure && failure->error.code == jsonrpc::error_code::parse_error) {
            log_->warn("{}: ignoring a line on stdout that is not JSON: {}", describe(),
                       shorten(line));
            return;
        }
        deliver(std::move(frame));
    }

    void read_stderr() {
        stderr_->async_read_some(
            asio::buffer(stderr_buffer_),
            guarded([](stdio_client_transport& self, const boost::system::error_code& error,
                       std::size_t size) {
                const line_sink sink{[&self](std::string_view line) { self.on_stderr_line(line); },
                                     [&self](std::size_t limit) {
                                         self.on_stderr_line("(a stderr line over " +
                                                             std::to_string(limit) +
                                                             " bytes was skipped)");
                                     }};
                if (!error) {
                    self.stderr_framer_.feed(std::string_view(self.stderr_buffer_.data(), size),
                                             sink);
                    self.read_stderr();
                    return;
                }
                self.stderr_framer_.finish(sink);
                self.stderr_ended_ = true;
                if (self.reaped_ && self.stdout_ended_) self.finish();
            }));
    }

    void on_stderr_line(std::string_view line) {
        log_->log(options_.stderr_level, "[{} stderr] {}", options_.name, line);
        stderr_tail_.emplace_back(shorten(line, 400));
        if (stderr_tail_.size() > stderr_tail_lines) stderr_tail_.pop_front();
    }

    void on_stdout_end() {
        stdout_ended_ = true;
        if (reaped_) {
            if (stderr_ended_) finish();
        } else {
            if (!shutting_down_) shutdown_cause_ = "it closed its stdout";
            begin_shutdown("it closed its stdout");
        }
    }

    void watch_exit() {
        const auto fd = static_cast<int>(::syscall(SYS_pidfd_open, pid_.load(), 0));
        if (fd >= 0) {
            exit_watch_ = std::make_unique<asio::posix::stream_descriptor>(strand_, fd);
            exit_watch_->async_wait(
                asio::posix::stream_descriptor::wait_read,
                guarded([](stdio_client_transport& self, const boost::system::error_code&) {
                    self.reap(true);
                }));
            return;
        }
        poll_timer_ = std::make_unique<asio::steady_timer>(strand_, exit_poll_interval);
        poll_timer_->async_wait(
            guarded([](stdio_client_transport& self, const boost::system::error_code& error) {
                if (!error) self.reap(false);
            }));
    }

    void reap(bool blocking_allowed) {
        int status = 0;
        pid_t result = 0;
        do {
            result = ::waitpid(pid_.load(), &status, blocking_allowed ? 0 : WNOHANG);
        } while (result < 0 && errno == EINTR);
        if (result == 0) {  // still running (polling mode)
            watch_exit();
            return;
        }
        reaped_ = true;
        wait_status_ = result > 0 ? std::optional<int>(status) : std::nullopt;
        shutdown_timer_.cancel();
        if (stdout_ended_ && stderr_ended_) {
            finish();
            return;
        }
        // Read what it wrote before dying; a grandchild holding the pipes open cannot delay us
        // for longer than this.
        drain_timer_.expires_after(drain_after_exit);
        drain_timer_.async_wait(
            guarded([](stdio_client_transport& self, const boost::system::error_code& error) {
                if (!error) self.finish();
            }));
    }

    void begin_shutdown(const std::string& why) {
        if (shutting_down_ || reaped_) return;
        shutting_down_ = true;
        log_->debug("{}: shutting down ({})", describe(), why);
        stdin_closed_ = true;
        boost::system::error_code ignored;
        stdin_->close(ignored);
        shutdown_step(SIGTERM, options_.stdin_close_grace);
    }

    void shutdown_step(int signal, std::chrono::milliseconds wait) {
        shutdown_timer_.expires_after(wait);
        shutdown_timer_.async_wait(
            guarded([signal](stdio_client_transport& self, const boost::system::error_code& error) {
                if (error || self.reaped_) return;
                self.log_->info("{}: still running; sending {}", self.describe(),
                                signal == SIGTERM ? "SIGTERM" : "SIGKILL");
                detail::signal_child(self.pid_.load(), signal);
                if (signal == SIGTERM) self.shutdown_step(SIGKILL, self.options_.terminate_grace);
            }));
    }

    void finish() {
        if (finished_) return;
        finished_ = true;
        drain_timer_.cancel();
        boost::system::error_code ignored;
        stdout_->close(ignored);
        stderr_->close(ignored);
        stdin_->close(ignored);
        if (exit_watch_) exit_watch_->close(ignored);  // also closes the pidfd
        close_info info;
        info.requested = close_requested_;
        std::string outcome = "ended";
        if (wait_status_) {
            outcome = detail::describe_wait_status(*wait_status_);
            if (WIFEXITED(*wait_status_)) info.exit_code = WEXITSTATUS(*wait_status_);
            if (WIFSIGNALED(*wait_status_)) info.signal = WTERMSIG(*wait_status_);
        }
        info.reason = describe() + " " + outcome;
        if (!close_requested_ && !shutdown_cause_.empty()) {
            info.reason += " (ipybox stopped it: " + shutdown_cause_ + ")";
        }
        if (!close_requested_) {
            if (!stderr_tail_.empty()) {
                info.reason += "; last stderr lines:";
                for (const auto& line : stderr_tail_) info.reason += "\n  " + line;
            }
        }
        if (close_requested_) {
            log_->debug("{}", info.reason);
        } else {
            log_->warn("{}", info.reason);
        }
        report_closed(std::move(info));
        keep_alive_.reset();
    }

    asio::io_context& io_;
    asio::strand<asio::io_context::executor_type> strand_;
    stdio_client_options options_;
    std::atomic<int> pid_{-1};

    // Everything below is touched on the strand only.
    std::unique_ptr<boost::process::async_pipe> stdin_;
    std::unique_ptr<boost::process::async_pipe> stdout_;
    std::unique_ptr<boost::process::async_pipe> stderr_;
    std::array<char, 64 * 1024> stdout_buffer_{};
    std::array<char, 8 * 1024> stderr_buffer_{};
    line_framer stdout_framer_;
    line_framer stderr_framer_;
    std::deque<std::string> stderr_tail_;
    std::deque<std::string> write_queue_;
    asio::steady_timer shutdown_timer_;
    asio::steady_timer drain_timer_;
    std::unique_ptr<asio::posix::stream_descriptor> exit_watch_;
    std::unique_ptr<asio::steady_timer> poll_timer_;
    std::optional<int> wait_status_;
    bool stdin_closed_ = false;
    bool stdout_ended_ = false;
    bool stderr_ended_ = false;
    bool shutting_down_ = false;
    bool close_requested_ = false;
    bool reaped_ = false;
    bool finished_ = false;
    std::string shutdown_cause_;  // why we stopped a child nobody asked us to close
    std::shared_ptr<stdio_client_transport> keep_alive_;
    std::shared_ptr<spdlog::logger> log_;
};

}  // namespace

std::shared_ptr<transport> make_stdio_client_transport(boost::asio::io_context& io,
                                                       stdio_client_options options) {
    return std::make_shared<stdio_client_transport>(io, std::move(options));
}

}  // namespace ipybox::mcp::transport
