#include "child_connection.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <csignal>
#include <mutex>

#include "ignore_sigpipe.hpp"
#include "ipybox/core/redactor.hpp"
#include "ipybox/core/untrusted_text.hpp"
#include "ipybox/process/executables.hpp"
#include "ipybox/process/spawn.hpp"

namespace ipybox::mcp::transport::detail {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;

constexpr std::size_t stderr_line_limit = 64 * 1024;
constexpr std::size_t stderr_tail_lines = 5;
constexpr auto drain_after_exit = 500ms;    // output still in the pipes when the exit is seen
constexpr auto exit_poll_interval = 100ms;  // only without an exit descriptor

// The kept stderr lines as they go into an error shown to people: one indented line each,
// rendered and cut to 400 characters. Redacted as one text before it is split, indented and
// cut, so that a secret over several lines (a PEM key) is found whole, not only line by line.
std::string stderr_tail_text(const std::deque<std::string>& raw_lines) {
    std::string joined;
    for (std::size_t i = 0; i < raw_lines.size(); ++i) {
        if (i > 0) joined += '\n';
        joined += raw_lines[i];
    }
    const auto redacted = core::redact_secrets(joined);
    core::untrusted_text_options tail_line;
    tail_line.max_characters = 400;
    std::string out;
    for (std::size_t begin = 0; begin <= redacted.size();) {
        auto end = redacted.find('\n', begin);
        if (end == std::string::npos) end = redacted.size();
        out += "\n  " + core::render_untrusted(
                            std::string_view(redacted).substr(begin, end - begin), tail_line);
        begin = end + 1;
    }
    return out;
}

}  // namespace

child_connection::child_connection(asio::io_context& io, stdio_client_options options)
    : io_(io),
      strand_(asio::make_strand(io)),
      options_(std::move(options)),
      log_(core::logger("mcp")),
      stdout_framer_(options_.max_line_bytes),
      stderr_framer_(stderr_line_limit),
      shutdown_timer_(strand_),
      drain_timer_(strand_) {
    if (options_.name.empty()) options_.name = options_.command;
}

child_connection::~child_connection() {
    if (exit_fd_ >= 0) ::close(exit_fd_);
    const int pid = pid_.load();
    if (pid <= 0 || reaped_) return;
    log_->warn("{}: still running at teardown; killing it", describe());
    process::signal_group(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
}

std::string child_connection::describe() const {
    const int pid = pid_.load();
    return "MCP server '" + options_.name + "'" +
           (pid > 0 ? " (pid " + std::to_string(pid) + ")" : std::string());
}

// The noexcept boundary of every handler: an unexpected exception is logged and shuts the child
// down instead of escaping io_context::run().
template <class Function>
void child_connection::run_safely(Function&& function) noexcept {
    try {
        function();
    } catch (const std::exception& error) {
        log_->error("{}: internal error: {}; shutting it down", describe(), error.what());
        try {
            shutdown_cause_ = std::string("internal error: ") + error.what();
            begin_shutdown("internal error");
        } catch (...) {
        }
    } catch (...) {
        log_->error("{}: unknown internal error", describe());
    }
}

// A handler on the strand that holds this object until it has run.
template <class Function>
auto child_connection::on_strand(Function function) {
    return asio::bind_executor(
        strand_, [self = shared_from_this(), function](auto&&... args) mutable {
            self->run_safely([&] { function(*self, std::forward<decltype(args)>(args)...); });
        });
}

void child_connection::start(callbacks report) {
    const auto environment = child_environment(options_);
    const auto path = environment.count("PATH") ? environment.at("PATH") : std::string();
    const auto executable = process::find_executable(options_.command, path);
    if (!executable) {
        throw transport_error("cannot start MCP server '" + options_.name + "': command '" +
                              options_.command + "' was not found (PATH=" + path + ")");
    }
    if (options_.cwd && !std::filesystem::is_directory(*options_.cwd)) {
        throw transport_error("cannot start MCP server '" + options_.name +
                              "': working directory " + options_.cwd->string() + " does not exist");
    }
    ignore_sigpipe_once();
    auto input = process::make_pipe();
    auto output = process::make_pipe();
    auto errors = process::make_pipe();
    process::spawn_request request;
    request.executable = *executable;
    request.arguments = options_.args;
    request.environment = environment;
    request.working_directory = options_.cwd ? *options_.cwd : std::filesystem::current_path();
    request.descriptors = {{0, input.read.get()}, {1, output.write.get()}, {2, errors.write.get()}};
    process::spawned_process child;
    try {
        child = process::spawn(request);
    } catch (const process::process_error& error) {
        throw transport_error("MCP server '" + options_.name + "': " + error.what());
    }
    report_ = std::move(report);
    stdin_ = std::make_unique<asio::posix::stream_descriptor>(io_, input.write.release());
    stdout_ = std::make_unique<asio::posix::stream_descriptor>(io_, output.read.release());
    stderr_ = std::make_unique<asio::posix::stream_descriptor>(io_, errors.read.release());
    pid_ = child.pid;
    exit_fd_ = child.exit_fd.release();
    log_->debug("{}: started {}", describe(), executable->string());
    asio::post(on_strand([](child_connection& self) {
        self.read_stdout();
        self.read_stderr();
        self.watch_exit();
    }));
}

void child_connection::send(std::string line) {
    asio::post(on_strand([line = std::move(line)](child_connection& self) mutable {
        if (self.stdin_closed_) return;
        self.write_queue_.push_back(std::move(line));
        if (self.write_queue_.size() == 1) self.write_next();
    }));
}

void child_connection::close() {
    close_called_ = true;
    asio::post(on_strand([](child_connection& self) {
        self.close_requested_ = true;
        self.begin_shutdown("close requested");
    }));
}

void child_connection::abandon() {
    if (close_called_ || pid_.load() <= 0) return;
    // On the strand, so that a child already reaped (whose pid may be reused) is left alone.
    asio::post(on_strand([](child_connection& self) {
        if (self.reaped_ || self.close_requested_) return;
        self.log_->warn("{}: its transport was dropped without close(); killing it",
                        self.describe());
        self.shutdown_cause_ = "its transport was dropped";
        process::signal_group(self.pid_.load(), SIGKILL);
    }));
}

void child_connection::write_next() {
    asio::async_write(
        *stdin_, asio::buffer(write_queue_.front()),
        on_strand([](child_connection& self, const boost::system::error_code& error, std::size_t) {
            if (error) {
                self.log_->debug("{}: writing to its stdin failed: {}", self.describe(),
                                 error.message());
                self.write_queue_.clear();
                if (!self.shutting_down_) self.shutdown_cause_ = "its stdin could not be written";
                self.begin_shutdown("its stdin is closed");
                return;
            }
            self.write_queue_.pop_front();
            if (!self.write_queue_.empty() && !self.stdin_closed_) self.write_next();
        }));
}

void child_connection::read_stdout() {
    stdout_->async_read_some(
        asio::buffer(stdout_buffer_),
        on_strand([](child_connection& self, const boost::system::error_code& error,
                     std::size_t size) {
            const line_sink sink{
                [&self](std::string_view line) { self.on_stdout_line(line); },
                [&self](std::size_t) { self.oversized_line_ = {}; },
                [&self](std::string_view bytes) { self.oversized_line_.feed(bytes); },
                [&self](std::size_t line_bytes) { self.on_stdout_oversized(line_bytes); }};
            if (!error) {
                self.stdout_framer_.feed(std::string_view(self.stdout_buffer_.data(), size), sink);
                if (self.stdout_framer_.inside_line() && self.report_.on_activity) {
                    self.report_.on_activity();
                }
                self.read_stdout();
                return;
            }
            self.stdout_framer_.finish(sink);
            self.on_stdout_end();
        }));
}

void child_connection::on_stdout_line(std::string_view line) {
    core::json_limits limits;
    limits.max_bytes = options_.max_line_bytes;
    auto frame = jsonrpc::decode(line, limits);
    // Banners and log lines are skipped; an answer that cannot be read goes on, so that the
    // request it answers fails instead of waiting.
    if (const auto* failure = std::get_if<jsonrpc::decode_failure>(&frame);
        failure && failure->error.code == jsonrpc::error_code::parse_error &&
        failure->reply_expected) {
        // Quoted and escaped: the line is the server's, and stderr may be a terminal. Redacted
        // before it is cut, so that a cut cannot keep part of a secret.
        log_->warn("{}: ignoring a line on stdout that is not JSON: {}", describe(),
                   core::quote_untrusted(core::redact_secrets(line), 200));
        return;
    }
    if (report_.on_frame) report_.on_frame(std::move(frame));
}

void child_connection::on_stdout_oversized(std::size_t line_bytes) {
    const auto reason = jsonrpc::oversized_reason(line_bytes, options_.max_line_bytes);
    const auto& hints = oversized_line_.hints();
    if (!hints.looks_like_response()) {
        log_->error("{}: skipped a line on stdout: {}", describe(), reason);
        return;
    }
    if (report_.on_frame) report_.on_frame(jsonrpc::unreadable_message(reason, hints));
}

void child_connection::read_stderr() {
    stderr_->async_read_some(
        asio::buffer(stderr_buffer_),
        on_strand([](child_connection& self, const boost::system::error_code& error,
                     std::size_t size) {
            const line_sink sink{[&self](std::string_view line) { self.on_stderr_line(line); },
                                 [&self](std::size_t limit) {
                                     self.on_stderr_line("(a stderr line over " +
                                                         std::to_string(limit) +
                                                         " bytes was skipped)");
                                 },
                                 nullptr, nullptr};
            if (!error) {
                self.stderr_framer_.feed(std::string_view(self.stderr_buffer_.data(), size), sink);
                self.read_stderr();
                return;
            }
            self.stderr_framer_.finish(sink);
            self.stderr_ended_ = true;
            if (self.reaped_ && self.stdout_ended_) self.finish();
        }));
}

void child_connection::on_stderr_line(std::string_view line) {
    log_->log(options_.stderr_level, "[{} stderr] {}", options_.name, line);
    stderr_tail_.emplace_back(line);  // raw: redacted as a whole by stderr_tail_text()
    if (stderr_tail_.size() > stderr_tail_lines) stderr_tail_.pop_front();
}

void child_connection::on_stdout_end() {
    stdout_ended_ = true;
    if (reaped_) {
        if (stderr_ended_) finish();
        return;
    }
    if (!shutting_down_) shutdown_cause_ = "it closed its stdout";
    begin_shutdown("it closed its stdout");
}

void child_connection::watch_exit() {
    const int fd = std::exchange(exit_fd_, -1);
    if (fd >= 0) {
        exit_watch_ = std::make_unique<asio::posix::stream_descriptor>(strand_, fd);
        exit_watch_->async_wait(
            asio::posix::stream_descriptor::wait_read,
            on_strand([](child_connection& self, const boost::system::error_code& error) {
                if (error != asio::error::operation_aborted) self.reap(true);
            }));
        return;
    }
    poll_timer_ = std::make_unique<asio::steady_timer>(strand_, exit_poll_interval);
    poll_timer_->async_wait(
        on_strand([](child_connection& self, const boost::system::error_code& error) {
            if (!error) self.reap(false);
        }));
}

void child_connection::reap(bool blocking_allowed) {
    if (reaped_) return;
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
    if (result > 0) exit_status_ = process::exit_status::from_wait_status(status);
    shutdown_timer_.cancel();
    if (stdout_ended_ && stderr_ended_) {
        finish();
        return;
    }
    // Read what it wrote before dying; a grandchild holding the pipes open cannot delay the
    // report for longer than this.
    drain_timer_.expires_after(drain_after_exit);
    drain_timer_.async_wait(
        on_strand([](child_connection& self, const boost::system::error_code& error) {
            if (!error) self.finish();
        }));
}

void child_connection::begin_shutdown(const std::string& why) {
    if (shutting_down_ || reaped_) return;
    shutting_down_ = true;
    log_->debug("{}: shutting down ({})", describe(), why);
    stdin_closed_ = true;
    // Not clearing write_queue_: its front is the buffer of a write in flight, which the close
    // below cancels; that write's handler drops the queue.
    boost::system::error_code ignored;
    stdin_->close(ignored);
    shutdown_step(SIGTERM, options_.stdin_close_grace);
}

void child_connection::shutdown_step(int signal, std::chrono::milliseconds wait) {
    shutdown_timer_.expires_after(wait);
    shutdown_timer_.async_wait(
        on_strand([signal](child_connection& self, const boost::system::error_code& error) {
            if (error || self.reaped_) return;
            self.log_->info("{}: still running; sending {}", self.describe(),
                            signal == SIGTERM ? "SIGTERM" : "SIGKILL");
            process::signal_group(self.pid_.load(), signal);
            if (signal == SIGTERM) self.shutdown_step(SIGKILL, self.options_.terminate_grace);
        }));
}

void child_connection::finish() {
    if (finished_) return;
    finished_ = true;
    drain_timer_.cancel();
    boost::system::error_code ignored;
    stdout_->close(ignored);
    stderr_->close(ignored);
    stdin_->close(ignored);
    if (exit_watch_) exit_watch_->close(ignored);  // also closes the exit descriptor
    close_info info;
    info.requested = close_requested_;
    std::string outcome = "ended";
    if (exit_status_) {
        outcome = exit_status_->describe();
        if (exit_status_->signal == 0) info.exit_code = exit_status_->code;
        if (exit_status_->signal != 0) info.signal = exit_status_->signal;
    }
    info.reason = describe() + " " + outcome;
    if (!close_requested_) {
        if (!shutdown_cause_.empty())
            info.reason += " (ipybox stopped it: " + shutdown_cause_ + ")";
        if (!stderr_tail_.empty()) {
            info.reason += "; last stderr lines:" + stderr_tail_text(stderr_tail_);
        }
        log_->warn("{}", info.reason);
    } else {
        log_->debug("{}", info.reason);
    }
    if (report_.on_end) report_.on_end(std::move(info));
    report_ = {};  // drops the transport's callbacks
}

}  // namespace ipybox::mcp::transport::detail
