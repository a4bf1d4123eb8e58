#pragma once
// What the tool server and its connections share. The connections hold it by shared_ptr, so a
// handler that runs after the server object is gone (an aborted read, say) still finds it.
//
// Threads: `acceptor`, `open` and `budget` are used on the io_context's thread only; `stopping`
// under `mutex`, from any thread; the guarded seams from any thread (owner_seams.hpp).
#include <spdlog/spdlog.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include "ipybox/toolserver/routes.hpp"
#include "ipybox/toolserver/tool_server.hpp"
#include "owner_seams.hpp"
#include "request_budget.hpp"

namespace ipybox::toolserver::detail {

class connection;

struct server_state {
    server_state(boost::asio::io_context& loop, tool_server_options o, approval::gate& gate,
                 tool_invoker& invoker, library_writer* library, dependency_adder* dependencies);

    boost::asio::io_context& io;
    tool_server_options options;
    // The owner's objects, reached only through these (owner_seams.hpp).
    sections owner_sections;
    guarded_gate gate;
    guarded_invoker invoker;
    std::optional<guarded_library> library;
    std::optional<guarded_dependencies> dependencies;
    route_context context;
    std::shared_ptr<spdlog::logger> log;
    boost::asio::local::stream_protocol::acceptor acceptor;
    std::map<const connection*, std::weak_ptr<connection>> open;  // io thread only
    request_budget budget;                                        // io thread only

    std::mutex mutex;
    bool stopping = false;
};

}  // namespace ipybox::toolserver::detail
