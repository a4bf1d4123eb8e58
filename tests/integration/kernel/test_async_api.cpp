// code_executor::async_execute() driven by an embedder's io_context on one thread: executions,
// their approvals and the next execution all start from handlers on that thread, every step
// arrives there, and nothing waits for the loop it runs on. The control is the blocking API on
// the same thread, which would wait for that loop forever and is refused instead.
#include <doctest/doctest.h>

#include <algorithm>
#include <boost/asio/post.hpp>
#include <future>
#include <string>
#include <vector>

#include "executor_fixture.hpp"
#include "running_loop.hpp"

using namespace ipybox;
using ipybox::testing::executor_options_for;
using ipybox::testing::running_loop;

namespace {

// What one execution handed its handler, and whether every step came on the loop's thread.
struct steps_seen {
    std::string output;
    std::vector<std::string> shell_commands;
    bool all_on_loop = true;
};

// Accepts every approval where it arrives and collects the output; `last` gets the final step.
std::function<void(code_execution_step)> collecting(boost::asio::io_context& io, steps_seen& seen,
                                                    std::function<void(code_execution_step)> last) {
    return [&io, &seen, last = std::move(last)](code_execution_step step) {
        seen.all_on_loop = seen.all_on_loop && io.get_executor().running_in_this_thread();
        if (auto* chunk = std::get_if<code_execution_chunk>(&step)) {
            seen.output += chunk->text;
        } else if (auto* request = std::get_if<approval_request>(&step)) {
            if (const auto* shell = request->as_shell_command()) {
                seen.shell_commands.push_back(shell->command);
            }
            request->accept();  // on the loop: settles without waiting
        } else {
            last(std::move(step));
        }
    };
}

}  // namespace

TEST_SUITE("integration: the async C++ API on an embedder's io_context") {
    TEST_CASE(
        "executions, their approvals and the next execution all run from handlers on one "
        "thread") {
        running_loop loop;
        auto options = executor_options_for("async-embedder");
        options.io_context = &loop.io;
        options.approve_shell_commands = true;
        code_executor executor(options);

        steps_seen first, second;
        std::promise<std::string> blocking_refusal;
        std::promise<code_execution_step> first_last, second_last;
        boost::asio::post(loop.io, [&] {
            executor.async_execute(
                "print('before')\n!echo from-the-shell\nprint('after')", std::nullopt,
                collecting(loop.io, first, [&](code_execution_step step) {
                    // The control: the blocking form on this thread would wait for this very
                    // loop; it is refused.
                    try {
                        executor.execute("print('never')");
                        blocking_refusal.set_value("");
                    } catch (const std::logic_error& e) {
                        blocking_refusal.set_value(e.what());
                    }
                    // The next execution starts from the last step's handler.
                    executor.async_execute(
                        "print(6 * 7)", std::nullopt,
                        collecting(loop.io, second, [&](code_execution_step next) {
                            second_last.set_value(std::move(next));
                        }));
                    first_last.set_value(std::move(step));
                }));
        });
        auto first_step = first_last.get_future().get();
        REQUIRE(std::holds_alternative<code_execution_result>(first_step));
        auto output = first.output;  // a shell's lines may end in \r\n (its pseudo-terminal)
        std::erase(output, '\r');
        CHECK(output == "before\nfrom-the-shell\nafter\n");
        CHECK(first.shell_commands == std::vector<std::string>{"echo from-the-shell"});
        CHECK(blocking_refusal.get_future().get().find("called on a thread that runs the "
                                                       "executor's io_context") !=
              std::string::npos);
        auto second_step = second_last.get_future().get();
        REQUIRE(std::holds_alternative<code_execution_result>(second_step));
        CHECK(second.output == "42\n");
        CHECK(first.all_on_loop);
        CHECK(second.all_on_loop);
        // The blocking API still works from another thread, over the same path.
        CHECK(executor.execute("print('blocking')").text == "blocking");
    }

    TEST_CASE("calls made before the session exists run in call order, and a failure is a value") {
        running_loop loop;
        auto options = executor_options_for("async-order");
        options.io_context = &loop.io;
        code_executor executor(options);
        std::vector<steps_seen> seen(3);
        std::vector<std::promise<code_execution_step>> last(3);
        boost::asio::post(loop.io, [&] {
            executor.async_execute(
                "import time; time.sleep(0.2); x = 'one'; print(x)", std::nullopt,
                collecting(loop.io, seen[0],
                           [&](code_execution_step s) { last[0].set_value(std::move(s)); }));
            executor.async_execute("1 / 0", std::nullopt,
                                   collecting(loop.io, seen[1], [&](code_execution_step s) {
                                       last[1].set_value(std::move(s));
                                   }));
            executor.async_execute("print(x + '-three')", std::nullopt,
                                   collecting(loop.io, seen[2], [&](code_execution_step s) {
                                       last[2].set_value(std::move(s));
                                   }));
        });
        auto one = last[0].get_future().get();
        auto two = last[1].get_future().get();
        auto three = last[2].get_future().get();
        CHECK(seen[0].output == "one\n");
        REQUIRE(std::holds_alternative<code_execution_failure>(two));
        const auto& failure = std::get<code_execution_failure>(two);
        CHECK(failure.error_kind == code_execution_failure::kind::exception);
        CHECK(failure.ename == "ZeroDivisionError");
        // The third ran after the first: it sees the first's variable.
        REQUIRE(std::holds_alternative<code_execution_result>(three));
        CHECK(seen[2].output == "one-three\n");
        CHECK(std::holds_alternative<code_execution_result>(one));
    }

    TEST_CASE("a kernel that cannot start is the last step, on the loop") {
        running_loop loop;
        auto options = executor_options_for("async-no-kernel");
        options.io_context = &loop.io;
        options.python = "/bin/false";
        code_executor executor(options);
        steps_seen seen;
        std::promise<code_execution_step> last;
        boost::asio::post(loop.io, [&] {
            executor.async_execute("print(1)", std::nullopt,
                                   collecting(loop.io, seen, [&](code_execution_step s) {
                                       last.set_value(std::move(s));
                                   }));
        });
        auto step = last.get_future().get();
        REQUIRE(std::holds_alternative<code_execution_failure>(step));
        CHECK(std::get<code_execution_failure>(step).error_kind ==
              code_execution_failure::kind::start_failed);
        CHECK(std::get<code_execution_failure>(step).message.find("/bin/false") !=
              std::string::npos);
        CHECK(seen.all_on_loop);
    }
}
