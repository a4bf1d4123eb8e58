#pragma once
// Helpers for driving the MCP layers from doctest: run an io_context until something happened,
// and capture the outcome of an asynchronous operation.
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace ipybox::testing {

// Runs `io` until `done()` holds or `limit` passes. Returns done().
template <class Predicate>
bool run_until(boost::asio::io_context& io, Predicate done,
               std::chrono::milliseconds limit = std::chrono::seconds(5)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done() && std::chrono::steady_clock::now() < deadline) {
        if (io.stopped()) io.restart();
        if (io.run_for(std::chrono::milliseconds(5)) == 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }
    return done();
}

// Runs `io` for `duration` (to let things that should NOT happen have their chance).
inline void run_for(boost::asio::io_context& io, std::chrono::milliseconds duration) {
    run_until(
        io, [] { return false; }, duration);
}

// The outcome of one `void(std::exception_ptr, T)` completion.
template <class T>
struct outcome {
    struct state {
        std::mutex mutex;
        bool done = false;
        std::exception_ptr error;
        std::optional<T> value;
    };
    std::shared_ptr<state> shared = std::make_shared<state>();

    auto handler() const {
        return [shared = shared](std::exception_ptr error, T value) {
            std::lock_guard lock(shared->mutex);
            shared->done = true;
            shared->error = error;
            if (!error) shared->value = std::move(value);
        };
    }
    bool done() const {
        std::lock_guard lock(shared->mutex);
        return shared->done;
    }
    std::exception_ptr error() const {
        std::lock_guard lock(shared->mutex);
        return shared->error;
    }
    const T& value() const { return *shared->value; }
    // The message of the exception, or "" on success.
    std::string error_message() const {
        try {
            if (auto failure = error()) std::rethrow_exception(failure);
        } catch (const std::exception& e) {
            return e.what();
        }
        return {};
    }
    template <class Exception>
    bool failed_with() const {
        try {
            if (auto failure = error()) std::rethrow_exception(failure);
        } catch (const Exception&) {
            return true;
        } catch (...) {
        }
        return false;
    }
};

// A thread-safe list of things a callback saw.
template <class T>
struct recorder {
    struct state {
        std::mutex mutex;
        std::vector<T> items;
    };
    std::shared_ptr<state> shared = std::make_shared<state>();

    void add(T item) const {
        std::lock_guard lock(shared->mutex);
        shared->items.push_back(std::move(item));
    }
    std::vector<T> items() const {
        std::lock_guard lock(shared->mutex);
        return shared->items;
    }
    std::size_t size() const {
        std::lock_guard lock(shared->mutex);
        return shared->items.size();
    }
};

}  // namespace ipybox::testing
