#pragma once
// What the tool server and its connections share. The connections hold it by shared_ptr, so a
// handler that runs after the server object is gone (an aborted read, say) still finds it.
//
// Threads: `acceptor`, `open` and `budget` are used on the io_context's thread only; the worker
// count and `stopping` under `mutex`, from any thread.
#include <spdlog/spdlog.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>

#include "ipybox/toolserver/routes.hpp"
#include "ipybox/toolserver/tool_server.hpp"
#include "request_budget.hpp"

namespace ipybox::toolserver::detail {

class connection;

struct server_state {
    server_state(boost::asio::io_context& loop, tool_server_options o, approval::gate& gate,
                 tool_invoker& invoker, approval::gate* shell_gate, library_writer* library);

    boost::asio::io_context& io;
    tool_server_options options;
    route_context context;
    std::shared_ptr<spdlog::logger> log;
    boost::asio::local::stream_protocol::acceptor acceptor;
    std::map<const connection*, std::weak_ptr<connection>> open;  // io thread only
    request_budget budget;                                        // io thread only

    std::mutex mutex;
    std::condition_variable workers_done;
    std::size_t workers = 0;  // requests being handled on worker threads
    bool stopping = false;

    // Counts a worker in; false once the server is stopping (the request is then dropped).
    bool enter_worker();
    void leave_worker();
};

}  // namespace ipybox::toolserver::detail
