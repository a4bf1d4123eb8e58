// A channel's socket as Asio waits on it (native/jupyter/src/detail/descriptor_waiter.hpp).
#include <doctest/doctest.h>
#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <memory>

#include "detail/descriptor_waiter.hpp"

using ipybox::jupyter::detail::descriptor_waiter;

namespace {

struct pipe_pair {
    int ends[2] = {-1, -1};
    pipe_pair() { REQUIRE(::pipe(ends) == 0); }
    ~pipe_pair() { close(); }
    void close() {
        for (int& end : ends) {
            if (end >= 0) ::close(end);
            end = -1;
        }
    }
};

}  // namespace

TEST_SUITE("jupyter.descriptor_waiter") {
    TEST_CASE("calls back once a wait is ready, and again only once armed again") {
        boost::asio::io_context io;
        int calls = 0;
        auto owner = std::make_shared<int>(0);
        descriptor_waiter waiter(boost::asio::make_strand(io), [&](short revents) {
            CHECK(revents == POLLIN);
            ++calls;
        });
        pipe_pair a;
        waiter.arm(a.ends[0], POLLIN, owner);
        io.poll();
        CHECK(calls == 0);
        REQUIRE(::write(a.ends[1], "x", 1) == 1);
        io.run_one();
        CHECK(calls == 1);
        io.restart();
        io.poll();
        CHECK(calls == 1);  // not armed again
        waiter.arm(a.ends[0], POLLIN, owner);
        io.restart();
        io.run_one();
        CHECK(calls == 2);  // the byte is still there: the wait starts level-triggered
        waiter.forget();
    }

    TEST_CASE("a descriptor number closed and reused is watched under its new file") {
        boost::asio::io_context io;
        int calls = 0;
        auto owner = std::make_shared<int>(0);
        descriptor_waiter waiter(boost::asio::make_strand(io), [&](short) { ++calls; });
        auto first = std::make_unique<pipe_pair>();
        const int number = first->ends[0];
        waiter.arm(number, POLLIN, owner);
        waiter.forget();  // as the channel's before_close does
        first->close();
        io.poll();
        CHECK(calls == 0);  // the forgotten wait ended without calling back
        pipe_pair second;
        REQUIRE(second.ends[0] == number);  // the lowest free number comes back
        waiter.arm(number, POLLIN, owner);
        REQUIRE(::write(second.ends[1], "x", 1) == 1);
        io.restart();
        io.run_one();
        CHECK(calls == 1);
        waiter.forget();
    }
}
