#pragma once
// The server side of the stdio transport: newline-delimited JSON on our stdin and stdout.
//
// This is the only code in ipybox that writes to stdout. Writes are serialised by one writer
// thread (a message is written whole, never interleaved); reads happen on one reader thread that
// frames lines (line_framer), decodes them and posts them to the io_context. Two threads rather
// than Asio descriptors because stdin/stdout may be files, /dev/null or a terminal, and because
// making fd 1 non-blocking would also make a terminal's stderr non-blocking.
//
// - End of file on stdin reports on_close ("stdin reached end of file") once the replies queued
//   by then are written; replies to requests still in progress are dropped with the session.
// - A line over the limit is skipped and answered as a -32700 parse error (id null).
// - From start() until on_close it counts as work on the io_context, so io_context::run() keeps
//   serving until the client disconnects.
// - close() writes what is queued, then reports on_close. The destructor stops both threads at
//   once, without waiting for a peer that does not read: wait for on_close before destroying.
// - SIGPIPE is blocked in the writer thread only, so a vanished client is a write error that
//   closes the transport, not the death of the process.
// Thread-safety: see transport.hpp.
#include <boost/asio/io_context.hpp>
#include <cstddef>
#include <memory>

#include "ipybox/mcp/transport/line_framer.hpp"
#include "ipybox/mcp/transport/transport.hpp"

namespace ipybox::mcp::transport {

struct stdio_server_options {
    std::size_t max_line_bytes = default_max_line_bytes;
    int input_fd = 0;  // tests substitute pipes; the descriptors are not closed by us
    int output_fd = 1;
};

std::shared_ptr<transport> make_stdio_server_transport(boost::asio::io_context& io,
                                                       stdio_server_options options = {});

}  // namespace ipybox::mcp::transport
