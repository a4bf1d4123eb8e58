#pragma once
// Two transports linked in one process, for tests: what one sends, the other receives.
//
// Every message makes a round trip through the codec (encode, then decode), so a test also
// proves that what a session sends is valid on the wire. Delivery is posted to the io_context
// (never inside send()), in order; messages sent before the peer started are held until it does.
// close() on either side closes both: the closer sees `requested`, the other "the peer closed".
// Thread-safety as for every transport (see transport.hpp).
#include <boost/asio/io_context.hpp>
#include <memory>
#include <utility>

#include "ipybox/mcp/transport/transport.hpp"

namespace ipybox::mcp::transport {

std::pair<std::shared_ptr<transport>, std::shared_ptr<transport>> make_memory_pair(
    boost::asio::io_context& io);

}  // namespace ipybox::mcp::transport
