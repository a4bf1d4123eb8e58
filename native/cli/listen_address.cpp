#include "listen_address.hpp"

#include <algorithm>
#include <boost/asio/ip/address.hpp>
#include <cctype>
#include <stdexcept>

namespace ipybox::cli {

listen_address parse_listen_address(std::string_view text) {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos) {
        throw std::invalid_argument("expected HOST:PORT, e.g. 127.0.0.1:8000, got '" +
                                    std::string(text) + "'");
    }
    auto host = text.substr(0, colon);
    const auto port = text.substr(colon + 1);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
        host = host.substr(1, host.size() - 2);
    }
    if (port.empty() || port.size() > 5 ||
        !std::all_of(port.begin(), port.end(), [](unsigned char c) { return std::isdigit(c); }) ||
        std::stoul(std::string(port)) > 65535) {
        throw std::invalid_argument("the port must be a number from 0 to 65535, got '" +
                                    std::string(port) + "'");
    }
    listen_address address;
    address.host = host == "localhost" ? "127.0.0.1" : std::string(host);
    address.port = static_cast<std::uint16_t>(std::stoul(std::string(port)));
    boost::system::error_code error;
    boost::asio::ip::make_address(address.host, error);
    if (error) {
        throw std::invalid_argument("the host must be an IP address (or localhost), got '" +
                                    std::string(host) + "'");
    }
    return address;
}

bool is_loopback_address(const std::string& host) {
    boost::system::error_code error;
    const auto address = boost::asio::ip::make_address(host, error);
    return !error && address.is_loopback();
}

}  // namespace ipybox::cli
