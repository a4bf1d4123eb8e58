#pragma once
// The server side of the stdio transport: newline-delimited JSON on our stdin and stdout.
//
// This is the only code in ipybox that writes to stdout. It runs on the io_context, on a strand:
// it waits for stdin to be readable and stdout writable (through duplicates of the descriptors,
// so that their file status flags stay as they are: no O_NONBLOCK, which on a terminal would
// also make stderr non-blocking), then reads up to 64 KiB or writes up to 4 KiB, which a pipe
// or terminal that polled ready takes without blocking; files and /dev/null, which cannot be
// waited on, never block. Messages are written whole, one at a time, in the order sent; lines
// read are framed (line_framer), decoded and delivered in order. No thread of its own.
//
// - End of file on stdin reports on_close ("stdin reached end of file") once the replies queued
//   by then are written; replies to requests still in progress are dropped with the session.
// - A line over the limit is skipped and answered as a -32700 parse error (id null).
// - From start() until on_close it counts as work on the io_context, so io_context::run() keeps
//   serving until the client disconnects.
// - close() stops reading, writes what is queued, then reports on_close. Destruction stops at
//   once, without waiting for a peer that does not read: wait for on_close before destroying.
// - SIGPIPE is ignored in the process (ignore_sigpipe.hpp), so a vanished client is a write
//   error that closes the transport, not the death of the process.
// - Like any reader of a shared stdin, it assumes no other process drains it: a read after a
//   ready wait that finds nothing would block the loop.
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
