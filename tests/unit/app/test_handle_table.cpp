// The bookkeeping of kernels as handles (app/mcp_server/src/handle_table.hpp) with stand-in
// kernels and a hand-moved clock: ownership without an oracle, both caps under concurrent
// reservations, the TTL counted from the last call's end and never while one runs.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "handle_table.hpp"

using namespace ipybox;
using namespace std::chrono_literals;

namespace {

struct fake_kernel {
    int number = 0;
};
using table = app::handle_table<fake_kernel>;
using clock_type = table::clock;

table make_table(std::size_t max_kernels, std::chrono::milliseconds ttl = 1000ms) {
    auto counter = std::make_shared<std::atomic<int>>(0);
    return table({max_kernels, ttl}, [counter] { return "id" + std::to_string(++*counter); });
}

app::owner_caps at_most(std::optional<std::size_t> kernels) {
    return {kernels, {}, {}};
}

std::string add(table& kernels, const std::string& owner, int number, clock_type::time_point now,
                std::optional<std::size_t> owner_max = std::nullopt,
                const app::kernel_cost& cost = {}) {
    kernels.reserve(owner, at_most(owner_max), cost);
    return kernels.add(owner, cost, std::make_shared<fake_kernel>(fake_kernel{number}),
                       {"w", false, true}, now);
}

}  // namespace

TEST_SUITE("app.handle_table") {
    TEST_CASE("a kernel is found by its owner only, and another's id reads as unknown") {
        auto kernels = make_table(8);
        const auto now = clock_type::now();
        const auto id = add(kernels, "alice", 1, now);
        CHECK(kernels.acquire(id, "alice", now)->number == 1);  // control
        CHECK(kernels.acquire(id, "bob", now) == nullptr);
        CHECK(kernels.acquire("never-made", "bob", now) == nullptr);
        CHECK(kernels.remove(id, "bob") == nullptr);
        CHECK(kernels.list("bob", now).empty());
        CHECK(kernels.remove(id, "alice")->number == 1);
        CHECK(kernels.acquire(id, "alice", now) == nullptr);
    }

    TEST_CASE("the server cap and a principal's cap hold for reservations at once") {
        auto kernels = make_table(5);
        std::atomic<int> granted{0};
        std::atomic<int> refused{0};
        std::vector<std::thread> threads;
        for (int i = 0; i < 40; ++i) {
            threads.emplace_back([&, i] {
                const auto owner = i % 2 ? std::string("carol") : std::string("dave");
                try {
                    kernels.reserve(
                        owner,
                        at_most(owner == "carol" ? std::optional<std::size_t>(2) : std::nullopt),
                        {});
                    ++granted;
                } catch (const app::handle_limit_error&) {
                    ++refused;
                }
            });
        }
        for (auto& thread : threads) thread.join();
        CHECK(granted == 5);
        CHECK(refused == 35);
        // Reservations count until added or given back.
        CHECK_THROWS_AS(kernels.reserve("erin", {}, {}), app::handle_limit_error);
        kernels.unreserve("dave", {});
        CHECK_NOTHROW(kernels.reserve("erin", {}, {}));
    }

    TEST_CASE("the messages say which cap and what to do") {
        auto kernels = make_table(1);
        add(kernels, "alice", 1, clock_type::now());
        try {
            kernels.reserve("bob", {}, {});
            FAIL("the server cap let a second kernel in");
        } catch (const app::handle_limit_error& e) {
            CHECK(std::string(e.what()).find("--max-kernels 1") != std::string::npos);
        }
        auto roomy = make_table(8);
        add(roomy, "alice", 1, clock_type::now(), 1);
        try {
            roomy.reserve("alice", at_most(1), {});
            FAIL("alice's cap let a second kernel in");
        } catch (const app::handle_limit_error& e) {
            CHECK(std::string(e.what()).find("'alice'") != std::string::npos);
            CHECK(std::string(e.what()).find("max_kernels=1") != std::string::npos);
        }
    }

    TEST_CASE("a kernel expires after the TTL idle, counted from its last call's end") {
        auto kernels = make_table(8, 1000ms);
        const auto start = clock_type::now();
        const auto id = add(kernels, "alice", 1, start);
        auto held = kernels.acquire(id, "alice", start + 500ms);
        // Busy far past the TTL: kept.
        CHECK(kernels.take_expired(start + 10s).empty());
        kernels.release(held, start + 10s);
        CHECK(kernels.take_expired(start + 10s + 999ms).empty());
        const auto expired = kernels.take_expired(start + 11s);
        REQUIRE(expired.size() == 1);
        CHECK(expired.front()->number == 1);
        CHECK(kernels.acquire(id, "alice", start + 11s) == nullptr);
    }

    TEST_CASE("a kernel that does not expire is kept, and take_all closes the table") {
        auto kernels = make_table(8, 10ms);
        const auto now = clock_type::now();
        kernels.reserve("local", {}, {});
        const auto id =
            kernels.add("local", {}, std::make_shared<fake_kernel>(), {"w", false, false}, now);
        CHECK(kernels.take_expired(now + 1h).empty());
        CHECK(kernels.take_all().size() == 1);
        CHECK_THROWS_AS(kernels.reserve("local", {}, {}), app::handle_limit_error);
        CHECK(kernels.acquire(id, "local", now) == nullptr);
    }

    TEST_CASE("an implicit kernel is made once per owner, even when asked for at once") {
        auto kernels = make_table(8);
        std::atomic<int> made{0};
        std::vector<std::thread> threads;
        std::vector<std::shared_ptr<fake_kernel>> got(8);
        for (int i = 0; i < 8; ++i) {
            threads.emplace_back([&, i] {
                got[i] = kernels.acquire_implicit("alice", at_most(2), {}, clock_type::now(), [&] {
                    ++made;
                    std::this_thread::sleep_for(20ms);
                    return std::make_pair(std::make_shared<fake_kernel>(fake_kernel{7}),
                                          table::details{".", false, true});
                });
            });
        }
        for (auto& thread : threads) thread.join();
        CHECK(made == 1);
        for (const auto& kernel : got) CHECK(kernel == got.front());
        // "" names it; another owner has none.
        CHECK(kernels.acquire("", "alice", clock_type::now()) == got.front());
        CHECK(kernels.acquire("", "bob", clock_type::now()) == nullptr);
        const auto listed = kernels.list("alice", clock_type::now());
        REQUIRE(listed.size() == 1);
        CHECK(listed.front().id.empty());
        // A failed make gives its reservation back.
        CHECK_THROWS(kernels.acquire_implicit("bob", at_most(1), {}, clock_type::now(), [&]() {
            throw std::runtime_error("no kernel");
            return std::make_pair(std::shared_ptr<fake_kernel>(), table::details{});
        }));
        CHECK_NOTHROW(kernels.reserve("bob", at_most(1), {}));
    }

    TEST_CASE("a principal's memory and CPU budgets bound the sum of its kernels' limits") {
        auto kernels = make_table(16);
        const auto now = clock_type::now();
        const std::uint64_t gib = 1ULL << 30;
        const app::owner_caps budget{std::nullopt, 3 * gib, 100};
        const app::kernel_cost kernel{gib, 40};
        kernels.reserve("alice", budget, kernel);
        const auto first =
            kernels.add("alice", kernel, std::make_shared<fake_kernel>(), {"w", false, true}, now);
        kernels.reserve("alice", budget, kernel);  // pending: counted as well
        try {
            kernels.reserve("alice", budget, kernel);
            FAIL("a third 40-second kernel fitted a 100-second budget");
        } catch (const app::handle_limit_error& e) {
            CHECK(std::string(e.what()).find("20 s of its cpu_seconds budget (100 s) left") !=
                  std::string::npos);
        }
        // A kernel with lower limits fits; one without a limit never fits a budget.
        CHECK_NOTHROW(kernels.reserve("alice", budget, {gib / 2, 10}));
        CHECK_THROWS_AS(kernels.reserve("alice", budget, {std::nullopt, 1}),
                        app::handle_limit_error);
        // Another principal's budget is its own; a destroyed kernel gives its share back.
        CHECK_NOTHROW(kernels.reserve("bob", budget, kernel));
        kernels.remove(first, "alice");
        CHECK_NOTHROW(kernels.reserve("alice", budget, kernel));
        // Without a budget, anything fits (the control).
        CHECK_NOTHROW(kernels.reserve("carol", {}, {std::nullopt, std::nullopt}));
    }

    TEST_CASE("cells at once are counted per principal") {
        auto kernels = make_table(8);
        kernels.begin_cell("carol", 1);
        CHECK_THROWS_AS(kernels.begin_cell("carol", 1), app::handle_limit_error);
        CHECK_NOTHROW(kernels.begin_cell("dave", 1));  // another principal's count
        kernels.end_cell("carol");
        CHECK_NOTHROW(kernels.begin_cell("carol", 1));
        CHECK_NOTHROW(kernels.begin_cell("erin", std::nullopt));
        CHECK_NOTHROW(kernels.begin_cell("erin", std::nullopt));
    }
}
