#pragma once
// The `request()` operation both session roles offer: any method by name, completing with the
// raw JSON result. Written once here; each role passes itself and its start function.
#include <memory>
#include <string>

#include "ipybox/mcp/jsonrpc/completion.hpp"
#include "ipybox/mcp/jsonrpc/dispatcher.hpp"

namespace ipybox::mcp::session::detail {

// `start` is the role's (private) member that sends the request; `self` is kept alive until
// the request has been handed to it.
template <class Role, class Token>
auto initiate_raw_request(boost::asio::io_context& io, std::shared_ptr<Role> self,
                          void (Role::*start)(const std::string&, nlohmann::json,
                                              jsonrpc::request_options,
                                              jsonrpc::completion<nlohmann::json>),
                          std::string method, nlohmann::json params,
                          jsonrpc::request_options options, Token&& token) {
    return jsonrpc::initiate<nlohmann::json>(
        io, std::forward<Token>(token),
        [self = std::move(self), start, method = std::move(method), params = std::move(params),
         options = std::move(options)](jsonrpc::completion<nlohmann::json> done) mutable {
            ((*self).*start)(method, std::move(params), std::move(options), std::move(done));
        });
}

}  // namespace ipybox::mcp::session::detail
