#include <doctest/doctest.h>

#include <chrono>
#include <optional>
#include <stdexcept>

#include "ipybox/core/ticket_lock.hpp"

using ipybox::core::ticket_lock;
using ipybox::core::ticket_turn;
using namespace std::chrono_literals;

TEST_SUITE("core.ticket_lock") {
    TEST_CASE("a turn passes the lock on when it goes out of scope, also through an exception") {
        ticket_lock lock;
        try {
            ticket_turn turn(lock);
            CHECK_FALSE(lock.wait_idle_for(0ms));
            throw std::runtime_error("failed while holding the turn");
        } catch (const std::runtime_error&) {
        }
        CHECK(lock.wait_idle_for(0ms));
    }

    TEST_CASE("a moved turn is passed on once, by its last owner") {
        ticket_lock lock;
        std::optional<ticket_turn> kept;
        {
            ticket_turn turn(lock);
            kept.emplace(std::move(turn));
            CHECK_FALSE(turn.held());
        }
        CHECK_FALSE(lock.wait_idle_for(0ms));
        kept->release();
        kept->release();
        CHECK(lock.wait_idle_for(0ms));  // a second release would have served a ticket ahead
        kept.reset();
        CHECK(lock.wait_idle_for(0ms));
    }

    TEST_CASE("a turn taken as a ticket earlier waits for that ticket") {
        ticket_lock lock;
        const auto first = lock.take_ticket();
        const auto second = lock.take_ticket();
        { ticket_turn turn(lock, first); }
        ticket_turn turn(lock, second);
        CHECK(turn.held());
        turn.release();
        CHECK(lock.wait_idle_for(0ms));
    }
}
