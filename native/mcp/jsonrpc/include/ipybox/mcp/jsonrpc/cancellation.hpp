#pragma once
// Cooperative cancellation: a source that cancels once, tokens that observe it.
//
// Outgoing requests take a token (the caller keeps the source); incoming requests hand their
// handler a token that fires when the peer sends notifications/cancelled or the connection closes.
//
// Thread-safety: every member of both classes may be called from any thread. Callbacks run on the
// thread that calls cancel(), outside any lock, or immediately inside on_cancel() if the token is
// already cancelled. A callback racing with the destruction of its registration may still run
// once; callbacks must therefore hold only weak or owned state.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace ipybox::mcp::jsonrpc {

namespace detail {
struct cancellation_state;
}

// Keeps a callback registered; unregisters it on destruction. Move-only.
class cancellation_registration {
  public:
    cancellation_registration() = default;
    cancellation_registration(std::weak_ptr<detail::cancellation_state> state, std::uint64_t key);
    cancellation_registration(cancellation_registration&& other) noexcept;
    cancellation_registration& operator=(cancellation_registration&& other) noexcept;
    ~cancellation_registration();

    cancellation_registration(const cancellation_registration&) = delete;
    cancellation_registration& operator=(const cancellation_registration&) = delete;

  private:
    void reset() noexcept;
    std::weak_ptr<detail::cancellation_state> state_;
    std::uint64_t key_ = 0;
};

class cancellation_token {
  public:
    // A token that is never cancelled.
    cancellation_token() = default;

    bool cancelled() const;
    // Empty until cancelled.
    std::string reason() const;

    // Runs `callback(reason)` once when cancelled. Callbacks must not throw (a throw is logged).
    [[nodiscard]] cancellation_registration on_cancel(
        std::function<void(const std::string& reason)> callback) const;

  private:
    friend class cancellation_source;
    explicit cancellation_token(std::shared_ptr<detail::cancellation_state> state);
    std::shared_ptr<detail::cancellation_state> state_;
};

class cancellation_source {
  public:
    cancellation_source();

    cancellation_token token() const;
    // Cancels and runs the callbacks. Returns false (and does nothing) if already cancelled.
    bool cancel(const std::string& reason);
    bool cancelled() const;

  private:
    std::shared_ptr<detail::cancellation_state> state_;
};

}  // namespace ipybox::mcp::jsonrpc
