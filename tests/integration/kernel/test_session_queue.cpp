// The kernel's one queue with the real ipykernel (kernel/kernel_session.hpp): executions
// submitted from many threads run in submission order, each stream with only its own output;
// and the executor's blocking API, called on the thread of the loop it waits for, is refused
// instead of blocking that loop for good.
#include <doctest/doctest.h>

#include <boost/asio/post.hpp>
#include <future>
#include <map>
#include <mutex>
#include <thread>

#include "executor_fixture.hpp"
#include "ipybox/kernel/interpreter.hpp"
#include "ipybox/kernel/kernel_session.hpp"
#include "ipybox/process/environment.hpp"
#include "running_loop.hpp"
#include "test_paths.hpp"

using namespace ipybox;
using ipybox::testing::executor_options_for;
using ipybox::testing::running_loop;

namespace {

// A session on `loop` with the interpreter the executor would choose.
kernel::session_options ipykernel_session(running_loop& loop, const std::string& name) {
    const auto environment =
        process::filter_environment(process::current_environment(), process::default_allowlist());
    kernel::interpreter_search search;
    const auto path = environment.find("PATH");
    search.path_variable = path != environment.end() ? path->second : "";
    search.environment = environment;
    kernel::session_options options;
    options.launch.io = &loop.io;
    options.launch.python = kernel::find_interpreter(search).chosen.path;
    options.launch.runtime_directory = testing::source_dir() / "native" / "python";
    options.launch.working_directory = testing::fresh_directory(name);
    options.launch.environment = environment;
    options.keep_spare = false;
    return options;
}

kernel::execution_outcome consume(kernel::execution_stream& stream) {
    while (!stream.finished()) stream.next();
    stream.release();
    return stream.finish();
}

// Whether the session's spares settle, within a few seconds, at `ready` ready and none starting.
[[maybe_unused]] bool spares_settle_at(const kernel::kernel_session& session, std::size_t ready) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    do {
        const auto spares = session.spares();
        if (spares.ready == ready && spares.starting == 0) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    } while (std::chrono::steady_clock::now() < until);
    return false;
}

}  // namespace

TEST_SUITE("kernel.queue_ipykernel") {
    TEST_CASE(
        "executions submitted from many threads run in submission order, each stream with "
        "only its own output") {
        running_loop loop;
        kernel::kernel_session session(ipykernel_session(loop, "queue-order"));
        session.run("ran = []");
        constexpr int threads = 6;
        constexpr int per_thread = 4;
        std::mutex mutex;
        std::vector<int> submitted;
        std::map<int, std::string> outputs;
        std::vector<std::thread> submitters;
        for (int t = 0; t < threads; ++t) {
            submitters.emplace_back([&, t] {
                for (int k = 0; k < per_thread; ++k) {
                    const auto id = std::to_string(t * per_thread + k);
                    // Output in pieces with pauses between: were two cells to run at once, or
                    // their outputs to share a stream, the pieces would mix.
                    const auto code = "import time\nran.append(" + id +
                                      ")\nfor k in range(3):\n    print(f'" + id +
                                      ":{k}', flush=True)\n    time.sleep(0.005)";
                    std::unique_ptr<kernel::execution_stream> stream;
                    {
                        std::lock_guard lock(mutex);
                        stream = session.execute(code, std::nullopt);
                        submitted.push_back(std::stoi(id));
                    }
                    auto text = consume(*stream).result.text;
                    std::lock_guard lock(mutex);
                    outputs.emplace(std::stoi(id), std::move(text));
                }
            });
        }
        for (auto& submitter : submitters) submitter.join();
        REQUIRE(outputs.size() == threads * per_thread);
        for (const auto& [id, text] : outputs) {
            const auto name = std::to_string(id);
            CHECK(text == name + ":0\n" + name + ":1\n" + name + ":2");
        }
        std::string expected = "[";
        for (std::size_t n = 0; n < submitted.size(); ++n) {
            expected += (n ? ", " : "") + std::to_string(submitted[n]);
        }
        CHECK(session.run("print(ran)").result.text == expected + "]");
    }

#if IPYBOX_TEST_FORKING  // elsewhere no spare is forked (test_kernel_template_posix.cpp)
    TEST_CASE("resets back to back keep two forked spares, and a second at rest goes back to one") {
        running_loop loop;
        auto options = ipykernel_session(loop, "queue-two-spares");
        options.keep_spare = true;
        // Longer than two spares take to start side by side on a loaded machine.
        options.back_to_back_within = std::chrono::seconds(5);
        kernel::kernel_session session(std::move(options));
        session.start();
        REQUIRE(spares_settle_at(session, 1));  // the template is up, the spare forked
        REQUIRE(session.cold_start_reason().empty());
        // "Calm" is back_to_back_within or more since the kernel before was taken: the time
        // passing is what is tested here, not a wait for something to happen.
        const auto calm = [] { std::this_thread::sleep_for(std::chrono::milliseconds(5100)); };
        // The control: a calm reset, which finds its spare ready, keeps one spare.
        calm();
        session.reset();
        CHECK(spares_settle_at(session, 1));
        // An agent's loop: this reset comes while the spare the last one started is starting,
        // and waits for it; from then on two are kept.
        calm();
        session.reset();
        session.reset();
        CHECK(spares_settle_at(session, 2));
        // At rest, back_to_back_within after the last reset, one of the two is retired.
        CHECK(spares_settle_at(session, 1));
        calm();
        session.reset();
        CHECK(spares_settle_at(session, 1));
        CHECK(session.run("print(6 * 7)").result.text == "42");
    }
#endif

    TEST_CASE("a blocking call on the thread that runs the executor's io_context is refused") {
        running_loop loop;
        auto options = executor_options_for("queue-loop-thread");
        options.io_context = &loop.io;
        code_executor executor(options);
        CHECK(executor.execute("print('from a thread of its own')").text ==
              "from a thread of its own");
        std::promise<std::string> refusal;
        boost::asio::post(loop.io, [&] {
            try {
                executor.execute("print('on the loop')");
                refusal.set_value("");
            } catch (const std::logic_error& e) {
                refusal.set_value(e.what());
            }
        });
        const auto message = refusal.get_future().get();
        CHECK(message.find("code_executor::execute() was called on a thread that runs the "
                           "executor's io_context") != std::string::npos);
        // cancel() does not wait: it is allowed there, and harmless when nothing runs.
        std::promise<void> cancelled;
        boost::asio::post(loop.io, [&] {
            executor.cancel();
            cancelled.set_value();
        });
        cancelled.get_future().get();
        CHECK(executor.execute("print('still usable')").text == "still usable");
    }
}
