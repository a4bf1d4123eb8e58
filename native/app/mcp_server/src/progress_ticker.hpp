#pragma once
// Progress notifications for a running cell, once a second, from a timer on the application's
// loop (no thread of its own): "running; last output: <the cell's last line>".
//
// Threads: note_output() and stop() from any thread (the worker running the cell); the ticks run
// on the loop. Lifetime: start() returns a shared handle; the timer keeps the ticker alive until
// stop() has cancelled it, so the caller may drop its handle at any time after stop().
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "ipybox/mcp/session/server_session.hpp"

namespace ipybox::app {

class progress_ticker : public std::enable_shared_from_this<progress_ticker> {
  public:
    static std::shared_ptr<progress_ticker> start(boost::asio::io_context& io,
                                                  mcp::session::request_context context,
                                                  std::chrono::milliseconds interval);

    // Keeps the last non-empty line of `text` (at most 200 bytes) for the next notification.
    void note_output(const std::string& text);
    // No notification after this returns.
    void stop();

  private:
    progress_ticker(boost::asio::io_context& io, mcp::session::request_context context,
                    std::chrono::milliseconds interval);
    void schedule();

    boost::asio::steady_timer timer_;
    mcp::session::request_context context_;
    std::chrono::milliseconds interval_;
    std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
    std::mutex mutex_;
    std::string last_line_;
    bool stopped_ = false;
};

}  // namespace ipybox::app
