#include "progress_ticker.hpp"

#include <boost/asio/post.hpp>

namespace ipybox::app {

std::shared_ptr<progress_ticker> progress_ticker::start(boost::asio::io_context& io,
                                                        mcp::session::request_context context,
                                                        std::chrono::milliseconds interval) {
    std::shared_ptr<progress_ticker> ticker(new progress_ticker(io, std::move(context), interval));
    boost::asio::post(io, [ticker] { ticker->schedule(); });
    return ticker;
}

progress_ticker::progress_ticker(boost::asio::io_context& io, mcp::session::request_context context,
                                 std::chrono::milliseconds interval)
    : timer_(io), context_(std::move(context)), interval_(interval) {}

void progress_ticker::note_output(const std::string& text) {
    const auto end = text.find_last_not_of('\n');
    if (end == std::string::npos) return;
    const auto start = text.find_last_of('\n', end);
    const auto from = start == std::string::npos ? 0 : start + 1;
    std::lock_guard lock(mutex_);
    last_line_ = text.substr(from, std::min<std::size_t>(end + 1 - from, 200));
}

void progress_ticker::stop() {
    {
        std::lock_guard lock(mutex_);
        stopped_ = true;
    }
    // The timer belongs to the loop's thread: it is cancelled there.
    boost::asio::post(timer_.get_executor(),
                      [self = shared_from_this()] { self->timer_.cancel(); });
}

void progress_ticker::schedule() {
    timer_.expires_after(interval_);
    timer_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
        // Under the lock: once stop() has returned, no notification can follow (the cell's
        // result may already be on its way).
        std::lock_guard lock(self->mutex_);
        if (ec || self->stopped_) return;
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - self->started_)
                .count();
        self->context_.report_progress(elapsed, std::nullopt,
                                       "running; last output: " + self->last_line_);
        self->schedule();
    });
}

}  // namespace ipybox::app
