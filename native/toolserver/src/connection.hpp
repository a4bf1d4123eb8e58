#pragma once
// One kernel connection to the tool server: HTTP/1.1 with keep-alive over the Unix socket.
//
// Reading and writing are asynchronous, on the server's io_context, and each has a deadline
// (options.idle_timeout to receive a whole request, options.write_timeout to deliver the
// answer): a client that stalls or never reads its answer loses its connection and holds no
// thread. Handling a request is asynchronous too (routes.hpp): an approval that waits for a
// person or a tool call that waits for its MCP server holds the connection, its budget and a
// pending callback, never a thread.
//
// A request is read in two steps: its header (into a buffer of fixed size, up to
// options.max_header_bytes), then, once the server's request_budget admits its cost, its body.
// While a request waits for admission no deadline runs (the server is the slow party) and its
// body stays in the socket. Once the answer is built, the request's cost becomes the answer's
// (answer_cost), held until the answer is written or the connection closes: answers the kernel
// does not read count against the same budget. An answer that cannot fit is replaced by a small
// 503 error (logged), and the connection closes after it.
//
// Threads: every member runs on the io_context's thread; the responder that serve() hands to
// the routes may run anywhere and posts the answer back.
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <memory>
#include <optional>

#include "request_budget.hpp"
#include "server_state.hpp"

namespace ipybox::toolserver::detail {

class connection : public std::enable_shared_from_this<connection> {
  public:
    connection(std::shared_ptr<server_state> state,
               boost::asio::local::stream_protocol::socket socket);

    void start();
    // Ends the connection now; a request being handled finishes, its answer is dropped.
    void close();

  private:
    using request_parser = boost::beast::http::request_parser<boost::beast::http::string_body>;

    void read_request();
    void on_header(boost::system::error_code ec);
    void read_body();
    void on_read(boost::system::error_code ec);
    void serve(http_request request, bool keep_alive);
    // Answers without handling (a refusal at the edge); the connection closes afterwards.
    void refuse(int status, const char* message);
    // Takes the answer's cost from the budget (or replaces the answer by an error), then writes.
    void answer(http_response response, bool keep_alive);
    void write_response(http_response response, bool keep_alive);
    // Gives back the budget of the request just handled (if any).
    void release_budget();
    // Arms the deadline of the operation about to start: when it passes, the socket is closed,
    // which completes that operation with an error.
    void arm_deadline(std::chrono::seconds limit);

    std::shared_ptr<server_state> state_;
    boost::asio::local::stream_protocol::socket socket_;
    boost::asio::steady_timer deadline_;
    boost::beast::flat_buffer buffer_;
    std::optional<request_parser> parser_;
    boost::beast::http::response<boost::beast::http::string_body> response_;
    std::size_t reserved_ = 0;  // budget held by the current request or its answer
    std::optional<request_budget::ticket> waiting_;  // while queued for the budget
    bool closed_ = false;
};

}  // namespace ipybox::toolserver::detail
