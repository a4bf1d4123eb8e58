#pragma once
// A scripted HTTP/1.1 server on 127.0.0.1 for the transport tests: each request is recorded and
// handed to a handler that answers it synchronously (plain body, chunked stream, abrupt drop).
// Plain or TLS (certificate files from make_test_certificate). One thread per connection.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace ipybox::testing {

struct recorded_request {
    std::string method;
    std::string target;
    std::string body;
    std::map<std::string, std::string> headers;  // names in lower case
    std::size_t connection = 0;                  // accept order of its connection, from 1
    std::chrono::steady_clock::time_point received;

    // Empty when absent.
    std::string header(const std::string& lower_case_name) const;
    bool has_header(const std::string& lower_case_name) const;
};

// Answers one request. Every call writes to the connection at once.
class reply {
  public:
    using header_list = std::map<std::string, std::string>;

    reply(std::function<void(std::string_view)> write, std::function<void()> drop,
          const std::atomic<bool>& stopping);

    void send(unsigned status, std::string body = {}, header_list headers = {});
    void send_json(unsigned status, const std::string& json, header_list headers = {});
    // A chunked text/event-stream response; then event()/chunk(), then end() or drop().
    void start_stream(unsigned status = 200, header_list headers = {});
    void chunk(std::string_view data);
    void event(const std::string& data, const std::string& id = {}, const std::string& type = {});
    void end();
    // Closes the connection without finishing the response (a crashed server).
    void drop();
    // Sleeps; false when the server is shutting down.
    bool sleep(std::chrono::milliseconds duration) const;
    bool finished() const { return finished_; }
    bool streaming() const { return streaming_; }

  private:
    std::function<void(std::string_view)> write_;
    std::function<void()> drop_;
    const std::atomic<bool>& stopping_;
    bool streaming_ = false;
    bool finished_ = false;
};

struct certificate_files {
    std::filesystem::path certificate;  // PEM, self-signed, for 127.0.0.1 and localhost
    std::filesystem::path key;
};

// Creates a self-signed certificate with the openssl command; fails the test when it cannot.
certificate_files make_test_certificate(const std::filesystem::path& directory);

class fake_http_server {
  public:
    using handler = std::function<void(const recorded_request&, reply&)>;

    explicit fake_http_server(handler on_request,
                              std::optional<certificate_files> tls = std::nullopt);
    ~fake_http_server();
    fake_http_server(const fake_http_server&) = delete;
    fake_http_server& operator=(const fake_http_server&) = delete;

    std::uint16_t port() const { return port_; }
    // "http://127.0.0.1:<port><path>" (https with TLS).
    std::string url(const std::string& path) const;
    std::vector<recorded_request> requests() const;
    std::size_t request_count() const;
    // Waits until at least `count` requests have arrived.
    bool wait_for_requests(std::size_t count,
                           std::chrono::milliseconds limit = std::chrono::seconds(5)) const;
    std::size_t handshake_failures() const { return handshake_failures_; }

  private:
    struct impl;
    void accept_loop();
    void serve(int fd, std::size_t connection);

    handler on_request_;
    std::unique_ptr<impl> impl_;
    std::uint16_t port_ = 0;
    bool tls_ = false;
    std::atomic<bool> stopping_{false};
    std::atomic<std::size_t> handshake_failures_{0};
    mutable std::mutex mutex_;
    mutable std::condition_variable arrived_;
    std::vector<recorded_request> requests_;
    std::vector<std::thread> threads_;
    std::vector<int> open_fds_;
    std::thread accept_thread_;
};

}  // namespace ipybox::testing
