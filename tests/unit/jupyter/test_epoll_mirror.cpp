// The epoll set that stands for a poll set (native/jupyter/src/detail/epoll_mirror.hpp).
#include <doctest/doctest.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <memory>

#include "detail/epoll_mirror.hpp"

using ipybox::jupyter::detail::epoll_mirror;

namespace {

bool readable(const epoll_mirror& set) {
    epoll_event event{};
    return ::epoll_wait(set.fd(), &event, 1, 0) == 1;
}

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

TEST_SUITE("jupyter.epoll_mirror") {
    TEST_CASE("wakes for what the poll set watches, and no longer for what left it") {
        epoll_mirror set;
        pipe_pair a;
        set.mirror({{a.ends[0], POLLIN, 0}, {-1, POLLIN, 0}});
        CHECK_FALSE(readable(set));
        REQUIRE(::write(a.ends[1], "x", 1) == 1);
        CHECK(readable(set));
        set.mirror({});
        CHECK_FALSE(readable(set));
    }

    TEST_CASE("a descriptor number closed and reused is watched under its new file") {
        epoll_mirror set;
        auto first = std::make_unique<pipe_pair>();
        const int number = first->ends[0];
        set.mirror({{number, POLLIN, 0}});
        first->close();  // leaves the epoll set by itself
        pipe_pair second;
        REQUIRE(second.ends[0] == number);  // the lowest free number comes back
        set.mirror({{number, POLLIN, 0}});  // the same entry as before, a different file
        REQUIRE(::write(second.ends[1], "x", 1) == 1);
        CHECK(readable(set));
    }
}
