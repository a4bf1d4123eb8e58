// The tool server's request budget: admission in order, within the capacity, and what a request
// of a given size is charged.
#include <doctest/doctest.h>

#include <stdexcept>
#include <vector>

#include "request_budget.hpp"

using namespace ipybox::toolserver::detail;

TEST_SUITE("toolserver.request_budget") {
    TEST_CASE("admits at once while the requests fit, then in order as capacity comes back") {
        request_budget budget(100);
        std::vector<int> admitted;
        budget.reserve(60, [&] { admitted.push_back(1); });
        budget.reserve(50, [&] { admitted.push_back(2); });  // 110 > 100: waits
        budget.reserve(10, [&] { admitted.push_back(3); });  // would fit, but 2 is first in line
        CHECK(admitted == std::vector<int>{1});
        CHECK(budget.in_use() == 60);
        CHECK(budget.waiting() == 2);
        budget.release(60);
        CHECK(admitted == std::vector<int>{1, 2, 3});
        CHECK(budget.in_use() == 60);
        CHECK(budget.waiting() == 0);
    }

    TEST_CASE("a withdrawn request is never admitted, and frees those behind it") {
        request_budget budget(100);
        std::vector<int> admitted;
        budget.reserve(90, [&] { admitted.push_back(1); });
        const auto large = budget.reserve(50, [&] { admitted.push_back(2); });
        budget.reserve(10, [&] { admitted.push_back(3); });
        budget.cancel(large);
        CHECK(admitted == std::vector<int>{1, 3});
        budget.release(100);
        CHECK(admitted == std::vector<int>{1, 3});
        CHECK(budget.in_use() == 0);
    }

    TEST_CASE("a request larger than the whole budget is refused, not queued for ever") {
        request_budget budget(100);
        CHECK_THROWS_AS(budget.reserve(101, [] {}), std::invalid_argument);
        CHECK(budget.waiting() == 0);
    }

    TEST_CASE("a request is charged for its body, its copies and its largest parse") {
        // Control for the charge: a body of n bytes parses to at most n/2 + 1 values, each
        // charged bytes_per_json_value, and the decoder's value limit caps that.
        CHECK(request_cost(0, 100000) == fixed_cost_per_request + bytes_per_json_value);
        CHECK(request_cost(1000, 100000) ==
              fixed_cost_per_request + 4000 + 501 * bytes_per_json_value);
        CHECK(request_cost(8 << 20, 100000) ==
              fixed_cost_per_request + 4 * (8u << 20) + 100000 * bytes_per_json_value);
    }

    TEST_CASE("try_take takes what fits now, ahead of the waiting requests, and nothing else") {
        request_budget budget(100);
        std::vector<int> admitted;
        budget.reserve(60, [&] { admitted.push_back(1); });
        budget.reserve(50, [&] { admitted.push_back(2); });  // waits
        CHECK(budget.try_take(40));                          // an answer: fits beside 1
        CHECK(budget.in_use() == 100);
        CHECK_FALSE(budget.try_take(1));  // full: refused, nothing taken
        CHECK(budget.in_use() == 100);
        budget.release(60);
        CHECK(admitted == std::vector<int>{1, 2});
        CHECK(budget.in_use() == 90);
    }
}
