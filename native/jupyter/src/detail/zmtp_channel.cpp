#include "zmtp_channel.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "ipybox/core/log.hpp"
#include "ipybox/core/quiet_sockets.hpp"

namespace ipybox::jupyter::detail {
namespace {

struct address {
    sockaddr_storage storage{};
    socklen_t length = 0;
};

address parse_endpoint(const std::string& endpoint) {
    address parsed;
    if (endpoint.rfind("ipc://", 0) == 0) {
        const auto path = endpoint.substr(6);
        auto& un = reinterpret_cast<sockaddr_un&>(parsed.storage);
        if (path.empty() || path.size() >= sizeof un.sun_path) {
            throw std::invalid_argument("unusable ipc endpoint " + endpoint);
        }
        un.sun_family = AF_UNIX;
        std::memcpy(un.sun_path, path.c_str(), path.size() + 1);
        parsed.length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size() + 1);
        return parsed;
    }
    if (endpoint.rfind("tcp://", 0) == 0) {
        const auto rest = endpoint.substr(6);
        const auto colon = rest.rfind(':');
        auto& in = reinterpret_cast<sockaddr_in&>(parsed.storage);
        in.sin_family = AF_INET;
        int port = 0;
        try {
            port = colon == std::string::npos ? 0 : std::stoi(rest.substr(colon + 1));
        } catch (const std::exception&) {
            port = 0;
        }
        if (port <= 0 || port > 65535 ||
            ::inet_pton(AF_INET, rest.substr(0, colon).c_str(), &in.sin_addr) != 1) {
            throw std::invalid_argument("unusable tcp endpoint " + endpoint);
        }
        in.sin_port = htons(static_cast<std::uint16_t>(port));
        parsed.length = sizeof(sockaddr_in);
        return parsed;
    }
    throw std::invalid_argument("unsupported endpoint " + endpoint);
}

}  // namespace

zmtp_channel::zmtp_channel(std::string endpoint, std::string socket_type, options o)
    : endpoint_(std::move(endpoint)),
      socket_type_(std::move(socket_type)),
      options_(std::move(o)),
      reader_(socket_type_, options_.limits),
      backoff_(options_.backoff) {
    // Refuse a bad endpoint or identity now, not on every retry.
    parse_endpoint(endpoint_);
    zmtp_ready(socket_type_, options_.identity);
    connect();
}

zmtp_channel::~zmtp_channel() {
    close_socket();
}

void zmtp_channel::close_socket() {
    if (fd_ < 0) return;
    if (options_.before_close) options_.before_close(fd_);
    ::close(fd_);
    fd_ = -1;
}

void zmtp_channel::send(const std::vector<std::string>& frames) {
    std::string encoded;
    zmtp_append_message(encoded, frames);
    queued_bytes_ += encoded.size();
    queue_.push_back(std::move(encoded));
}

short zmtp_channel::events() const {
    if (fd_ < 0) return 0;
    if (connecting_) return POLLOUT;
    const bool to_write =
        !handshake_.empty() || !pong_.empty() || (reader_.ready() && !queue_.empty());
    return static_cast<short>(POLLIN | (to_write ? POLLOUT : 0));
}

void zmtp_channel::connect() {
    const auto target = parse_endpoint(endpoint_);
    fd_ = core::quiet_socket(target.storage.ss_family, SOCK_STREAM, /*nonblocking=*/true);
    if (fd_ < 0) {
        disconnect(failure::refused,
                   std::string("cannot create a socket: ") + std::strerror(errno));
        return;
    }
    connecting_ = false;
    if (::connect(fd_, reinterpret_cast<const sockaddr*>(&target.storage), target.length) != 0) {
        if (errno != EINPROGRESS) {
            disconnect(failure::refused, std::strerror(errno));  // not listening yet, most often
            return;
        }
        connecting_ = true;  // tcp: handle() learns the outcome
        return;
    }
    on_connected();
}

void zmtp_channel::on_connected() {
    // A fresh conversation, greeting first.
    connecting_ = false;
    reader_ = zmtp_reader(socket_type_, options_.limits);
    pong_.clear();
    healthy_ = false;
    handshake_ = zmtp_greeting() + zmtp_ready(socket_type_, options_.identity);
    written_ = 0;
    if (socket_type_ == "SUB") {  // subscribe to everything, first thing after the handshake
        std::string subscribe;
        zmtp_append_message(subscribe, {std::string(1, '\x01')});
        queued_bytes_ += subscribe.size();
        queue_.push_front(std::move(subscribe));
    }
}

void zmtp_channel::disconnect(failure kind, const std::string& why) {
    close_socket();
    connecting_ = false;
    handshake_.clear();
    written_ = 0;  // a message cut by the break goes again whole
    const auto now = options_.now();
    const auto wait =
        kind == failure::refused ? backoff_.after_refused() : backoff_.after_failure();
    reconnect_at_ = now + wait;
    const auto log = core::logger("jupyter");
    if (kind != failure::protocol) {
        log->trace("{}: not connected ({}); retrying in {} ms", endpoint_, why, wait.count());
        return;
    }
    const auto count = failures_.on_failure(now);
    if (!count) return;
    if (*count == 1) {
        log->warn("{}: {}; reconnecting in {} ms", endpoint_, why, wait.count());
    } else {
        log->warn("{}: {}; {} such failures since the last line, reconnecting in {} ms", endpoint_,
                  why, *count, wait.count());
    }
}

void zmtp_channel::retry() {
    if (fd_ < 0 && options_.now() >= reconnect_at_) connect();
}

void zmtp_channel::handle(short revents, const zmtp_reader::callbacks& calls,
                          std::size_t read_budget) {
    if (fd_ < 0) return;
    if (connecting_) {
        if (!(revents & (POLLOUT | POLLERR | POLLHUP))) return;
        int error = 0;
        socklen_t length = sizeof error;
        if (::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &error, &length) != 0) error = errno;
        if (error != 0) {
            disconnect(failure::refused, std::strerror(error));
            return;
        }
        on_connected();
    }
    if (revents & (POLLIN | POLLERR | POLLHUP)) {
        char buffer[64 * 1024];
        std::size_t taken = 0;
        while (taken < read_budget) {
            const ssize_t got = ::read(fd_, buffer, sizeof buffer);
            if (got < 0 && errno == EINTR) continue;
            if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
            if (got <= 0) {
                disconnect(failure::broken,
                           got == 0 ? "closed by the kernel" : std::strerror(errno));
                return;
            }
            taken += static_cast<std::size_t>(got);
            try {
                reader_.feed(std::string_view(buffer, static_cast<std::size_t>(got)), calls);
            } catch (const zmtp_error& e) {
                disconnect(failure::protocol, e.what());
                return;
            }
            // One PONG waits at most: a PING that comes while one is unsent is not answered, so
            // a kernel that pings without reading makes us hold 18 bytes, not a queue.
            if (auto ping = reader_.take_ping(); ping && pong_.empty()) pong_ = zmtp_pong(*ping);
            if (!healthy_ && reader_.delivered() > 0) {
                healthy_ = true;
                backoff_.healthy();
            }
        }
    }
    flush();
}

bool zmtp_channel::flush() {
    // Messages wait for the peer's READY: libzmq takes a frame that arrives before it has sent
    // its own READY for a second handshake command, and drops the connection. A PONG goes
    // between messages, never inside one.
    while (fd_ >= 0) {
        std::string* whole = !handshake_.empty()                 ? &handshake_
                             : (!pong_.empty() && written_ == 0) ? &pong_
                                                                 : nullptr;
        if (whole == nullptr && (!reader_.ready() || queue_.empty())) break;
        const std::string& front = whole ? *whole : queue_.front();
        const std::size_t from = whole ? 0 : written_;
        const ssize_t sent =
            core::quiet_send(fd_, front.data() + from, front.size() - from, MSG_DONTWAIT);
        if (sent < 0 && errno == EINTR) continue;
        if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
        if (sent < 0) {
            disconnect(failure::broken, std::strerror(errno));
            return false;
        }
        if (whole) {
            whole->erase(0, static_cast<std::size_t>(sent));
            continue;
        }
        written_ += static_cast<std::size_t>(sent);
        if (written_ == front.size()) {
            queued_bytes_ -= front.size();
            queue_.pop_front();
            written_ = 0;
        }
    }
    return fd_ >= 0;
}

}  // namespace ipybox::jupyter::detail
