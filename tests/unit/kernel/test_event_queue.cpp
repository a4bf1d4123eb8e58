// The event queue between a kernel's I/O thread and its consumer stays bounded when the consumer
// falls behind, and the consumer still ends up with exactly the head and tail an unbounded queue
// would have given it. Checked on generated output (fixed seeds; IPYBOX_FUZZ_ROUNDS for more).
#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>
#include <random>

#include "ipybox/core/bounded_text.hpp"
#include "ipybox/kernel/kernel_events.hpp"
#include "ipybox/kernel/output_collector.hpp"
#include "test_paths.hpp"

using namespace ipybox;
using namespace ipybox::kernel;

namespace {

std::optional<kernel_event> pop_now(event_queue& queue) {
    return queue.pop(std::chrono::steady_clock::now());
}

// Text pieces of random sizes and ASCII contents that make their position recognisable.
std::vector<std::string> pieces(std::mt19937& random, std::size_t count, std::size_t largest) {
    std::vector<std::string> out;
    std::uniform_int_distribution<std::size_t> size(0, largest);
    for (std::size_t i = 0; i < count; ++i) {
        std::string piece;
        const auto length = size(random);
        for (std::size_t j = 0; j < length; ++j) {
            piece.push_back(static_cast<char>('a' + (i * 7 + j) % 26));
        }
        piece.push_back('\n');
        out.push_back(std::move(piece));
    }
    return out;
}

int rounds() {
    const char* text = std::getenv("IPYBOX_FUZZ_ROUNDS");
    return text != nullptr ? std::atoi(text) : 40;
}

}  // namespace

TEST_CASE("within its budget the queue passes every piece through as it came") {
    event_queue queue(100, 50);
    queue.push(stream_output{"stdout", "one\n", {}, 0});
    queue.push(kernel_idle{});
    queue.push(stream_output{"stderr", "two\n", {}, 0});
    auto first = pop_now(queue);
    REQUIRE(first);
    CHECK(std::get<stream_output>(*first).text == "one\n");
    CHECK(std::holds_alternative<kernel_idle>(*pop_now(queue)));
    CHECK(std::get<stream_output>(*pop_now(queue)).name == "stderr");
    CHECK_FALSE(pop_now(queue));
}

TEST_CASE("a consumer that falls behind gets one merged piece with head, tail and the count") {
    event_queue queue(10, 8);
    for (int i = 0; i < 100; ++i)
        queue.push(stream_output{"stdout", std::to_string(i % 10), {}, 0});
    queue.push(kernel_idle{});
    std::string passed;
    std::optional<stream_output> merged;
    while (auto event = pop_now(queue)) {
        if (auto* piece = std::get_if<stream_output>(&*event)) {
            if (piece->omitted > 0) {
                merged = *piece;
            } else {
                passed += piece->text;
            }
        } else {
            CHECK(std::holds_alternative<kernel_idle>(*event));  // never lost, still last
        }
    }
    CHECK(passed == "0123456789");
    REQUIRE(merged);
    CHECK(merged->text == "0123");
    CHECK(merged->tail == "6789");
    CHECK(merged->omitted == 82);
}

TEST_CASE("whatever the consumer's pace, it keeps the same head and tail as with no bound") {
    std::mt19937 random(20261123);
    for (int round = 0; round < rounds(); ++round) {
        const std::size_t cap = std::uniform_int_distribution<std::size_t>(2, 400)(random);
        const std::size_t budget = std::uniform_int_distribution<std::size_t>(0, 300)(random);
        const auto text = pieces(random, std::uniform_int_distribution<std::size_t>(1, 60)(random),
                                 std::uniform_int_distribution<std::size_t>(0, 90)(random));
        CAPTURE(round);
        CAPTURE(cap);
        CAPTURE(budget);
        core::bounded_text reference(cap);
        for (const auto& piece : text) reference.append(piece);

        const auto images = ipybox::testing::fresh_directory("queue-images");
        output_collector collector(images, images, cap);
        event_queue queue(budget, cap);
        std::bernoulli_distribution consume_now(0.3);
        std::size_t largest = 0;
        for (const auto& piece : text) largest = std::max(largest, piece.size());
        const auto drain_one = [&] {
            auto event = pop_now(queue);
            if (!event) return false;
            if (auto* piece = std::get_if<stream_output>(&*event)) collector.add(*piece);
            return true;
        };
        for (const auto& piece : text) {
            queue.push(stream_output{"stdout", piece, {}, 0});
            CHECK(queue.held_stream_bytes() <= budget + largest + 2 * cap);
            while (consume_now(random) && drain_one()) {
            }
        }
        while (drain_one()) {
        }
        CHECK(collector.text() == [&] {
            auto expected = reference.str();
            expected.erase(expected.find_last_not_of(" \t\r\n") + 1);
            return expected;
        }());
    }
}

TEST_CASE("images past the execution's image budget are dropped as they arrive and counted") {
    event_queue queue(1 << 20, 0, 100);
    const auto image = [](std::size_t size) {
        return display_output{{{"image/png", std::string(size, 'A')}, {"text/plain", "<Image>"}}};
    };
    queue.push(image(60));  // control: within the budget, queued as it came
    queue.push(image(60));  // would pass it: dropped
    queue.push(display_output{{{"text/plain", "text only"}}});  // no image: not counted
    queue.push(image(40));                                      // fits what is left
    queue.push(image(1));                                       // the budget is spent
    CHECK(queue.images_left_out() == 2);
    CHECK(std::get<display_output>(*pop_now(queue)).data["image/png"].get<std::string>().size() ==
          60);
    CHECK(std::get<display_output>(*pop_now(queue)).data["text/plain"] == "text only");
    CHECK(std::get<display_output>(*pop_now(queue)).data["image/png"].get<std::string>().size() ==
          40);
    CHECK_FALSE(pop_now(queue));
}
