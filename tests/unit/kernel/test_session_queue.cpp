// A kernel session is one queue (kernel_session.hpp): executions and resets run one at a time in
// submission order, cancel() overtakes the queue, a lost kernel ends what waited for it, and a
// session can go with work running and queued. Against the fake kernel, whose "set"/"get" state
// shows which kernel ran what and in which order.
#include <doctest/doctest.h>

#include <atomic>
#include <boost/asio/post.hpp>
#include <csignal>
#include <future>
#include <map>
#include <thread>

#include "fake_session_fixture.hpp"

using namespace ipybox::kernel;
using namespace std::chrono_literals;
using ipybox::testing::fake_session_fixture;

namespace {

// Consumes `stream` to its end, gives its place in the queue back and returns how it ended.
execution_outcome consume(execution_stream& stream) {
    while (!stream.finished()) stream.next();
    stream.release();
    return stream.finish();
}

bool cancelled(const execution_outcome& outcome) {
    return outcome.ending == execution_outcome::kind::cancelled;
}

// How the execution failed, by kind and message ("" if it did not fail).
std::string failure_of(execution_stream& stream) {
    const auto outcome = consume(stream);
    switch (outcome.ending) {
        case execution_outcome::kind::kernel_died:
            return "kernel_died: " + outcome.message;
        case execution_outcome::kind::start_failed:
            return "start_failed: " + outcome.message;
        case execution_outcome::kind::completed:
        case execution_outcome::kind::cancelled:
            return "";
        default:
            return "other: " + outcome.message;
    }
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST_SUITE("kernel.queue") {
    TEST_CASE_FIXTURE(fake_session_fixture,
                      "executions submitted from many threads run one at a time in submission "
                      "order, each stream with only its own output") {
        kernel_session session(options());
        session.start();
        constexpr int threads = 8;
        constexpr int per_thread = 5;
        std::mutex mutex;
        std::vector<int> submitted;  // ids in the order execute() queued them
        std::map<int, execution_outcome> results;
        std::vector<std::thread> submitters;
        for (int t = 0; t < threads; ++t) {
            // Each thread has one execution in the queue at a time, up to eight in all: any
            // order the queue chose would be consumed, so a wrong one shows in the counts.
            submitters.emplace_back([&, t] {
                for (int k = 0; k < per_thread; ++k) {
                    const int id = t * per_thread + k;
                    const auto code = "print " + std::to_string(id) + "-a\nsleep 2\nprint " +
                                      std::to_string(id) + "-b";
                    std::unique_ptr<execution_stream> stream;
                    {
                        std::lock_guard lock(mutex);
                        stream = session.execute(code, std::nullopt);
                        submitted.push_back(id);
                    }
                    auto result = consume(*stream);
                    std::lock_guard lock(mutex);
                    results.emplace(id, std::move(result));
                }
            });
        }
        for (auto& submitter : submitters) submitter.join();
        REQUIRE(results.size() == threads * per_thread);
        // The kernel counts executions as it runs them: the n-th submitted ran n-th.
        for (std::size_t n = 0; n < submitted.size(); ++n) {
            const auto& result = results.at(submitted[n]);
            CHECK(result.result.execution_count == static_cast<int>(n) + 1);
            const auto id = std::to_string(submitted[n]);
            CHECK(result.result.text == id + "-a\n" + id + "-b");
        }
    }

    TEST_CASE_FIXTURE(fake_session_fixture,
                      "cancel overtakes the queue: the running execution stops and the queued "
                      "ones then run in order") {
        kernel_session session(options());
        session.run("set 0");
        // Without overtaking, the first would run its 10 s and end normally, not cancelled.
        auto running = session.execute("print a\nsleep 10000\nset never", std::nullopt);
        auto second = session.execute("get\nset second", std::nullopt);
        auto third = session.execute("get", std::nullopt);
        REQUIRE(running->next());  // it runs: "a" is out
        session.cancel();
        const auto stopped = consume(*running);
        CHECK(cancelled(stopped));
        CHECK(stopped.result.text == "a");
        const auto after = consume(*second);
        CHECK_FALSE(cancelled(after));
        CHECK(after.result.text == "0");
        CHECK(consume(*third).result.text == "second");
    }

    TEST_CASE_FIXTURE(fake_session_fixture,
                      "an execution cancelled while it waits in the queue never runs, and the "
                      "others go on") {
        kernel_session session(options());
        session.run("set 0");
        auto running = session.execute("print a\nsleep 10000", std::nullopt);
        auto withdrawn = session.execute("set withdrawn", std::nullopt);
        auto last = session.execute("get", std::nullopt);
        REQUIRE(running->next());
        withdrawn->cancel();
        const auto result = consume(*withdrawn);  // ends at once, while the first still runs
        CHECK(cancelled(result));
        CHECK(result.result.text.empty());
        session.cancel();
        CHECK(cancelled(consume(*running)));
        CHECK(consume(*last).result.text == "0");
    }

    TEST_CASE_FIXTURE(fake_session_fixture,
                      "a reset queued after executions runs after them, and what is queued after "
                      "it runs in the fresh kernel") {
        kernel_session session(options());
        session.start();
        const int first_kernel = session.kernel_pid();
        // All queued before any runs: only the queue puts the reset between them.
        auto set = session.execute("set 7", std::nullopt);
        auto before = session.execute("get", std::nullopt);
        std::promise<std::exception_ptr> reset_done;
        session.async_reset({}, [&](std::exception_ptr failure) { reset_done.set_value(failure); });
        auto after = session.execute("get", std::nullopt);
        consume(*set);
        CHECK(consume(*before).result.text == "7");
        CHECK(consume(*after).result.text == "unset");
        CHECK(reset_done.get_future().get() == nullptr);
        CHECK(session.kernel_pid() != first_kernel);
    }

    TEST_CASE_FIXTURE(fake_session_fixture,
                      "a reset's hook runs on its turn, after the executions queued before it "
                      "ended") {
        kernel_session session(options());
        session.start();
        const int pid = session.kernel_pid();
        auto running = session.execute("print a\nsleep 10000", std::nullopt);
        REQUIRE(running->next());
        std::atomic<bool> consumed{false};
        std::promise<std::pair<bool, int>> hook_ran;  // what the hook saw
        std::thread resetter([&] {
            session.reset([&] { hook_ran.set_value({consumed.load(), session.kernel_pid()}); });
        });
        session.cancel();
        while (!running->finished()) running->next();
        consumed = true;
        running->release();  // only now may the reset's turn come
        CHECK(cancelled(running->finish()));
        resetter.join();
        const auto [after_release, kernel_then] = hook_ran.get_future().get();
        CHECK(after_release);
        CHECK(kernel_then == pid);  // the old kernel was still current: the swap comes after
        CHECK(session.kernel_pid() != pid);
    }

    TEST_CASE_FIXTURE(fake_session_fixture,
                      "a kernel that dies mid-queue fails the running execution, ends the queued "
                      "ones without running them up to a reset, and nothing hangs") {
        kernel_session session(options());
        session.run("set 7");
        const int pid = session.kernel_pid();
        auto running = session.execute("print partial\nsleep 10000", std::nullopt);
        auto queued = session.execute("set 8\nprint ran", std::nullopt);
        auto also_queued = session.execute("print ran", std::nullopt);
        std::promise<std::exception_ptr> reset_done;
        session.async_reset({}, [&](std::exception_ptr failure) { reset_done.set_value(failure); });
        auto after_reset = session.execute("get", std::nullopt);
        REQUIRE(running->next());
        REQUIRE(::kill(pid, SIGKILL) == 0);
        CHECK(contains(failure_of(*running), "SIGKILL"));
        for (auto* stream : {queued.get(), also_queued.get()}) {
            const auto failure = failure_of(*stream);
            CHECK(contains(failure, "kernel_died: This code did not run"));
            CHECK(contains(failure, "the kernel died while an earlier execution ran"));
        }
        CHECK(reset_done.get_future().get() == nullptr);
        const auto fresh = consume(*after_reset);
        CHECK(fresh.result.text == "unset");
        CHECK(fresh.result.notices.empty());
        // Submitted after the death was known: it runs, in a fresh kernel that says so.
        session.run("print x");
        CHECK(session.kernel_pid() != pid);
    }

    TEST_CASE_FIXTURE(fake_session_fixture,
                      "a timeout counts from the moment the code is sent, not from submission") {
        kernel_session session(options());
        session.start();
        auto first = session.execute("sleep 300\nprint first", std::nullopt);
        // Queued behind 300 ms of work with a 100 ms timeout of its own.
        auto second = session.execute("print second", 100ms);
        CHECK(consume(*first).result.text == "first");
        CHECK(consume(*second).result.text == "second");
    }

    TEST_CASE_FIXTURE(fake_session_fixture,
                      "a paused timeout clock lets the code run on, and without the pause the same "
                      "code times out") {
        kernel_session session(options());
        session.start();
        auto paused = session.execute("sleep 300\nprint done", 100ms);
        paused->pause_timeout();  // as while a tool call waits for approval
        CHECK(consume(*paused).result.text == "done");
        CHECK(session.run("sleep 300\nprint done", 100ms).ending ==
              execution_outcome::kind::timeout);
    }

    TEST_CASE_FIXTURE(fake_session_fixture,
                      "a session destroyed with work running and queued ends every stream, and "
                      "the streams outlive it safely") {
        auto session = std::make_unique<kernel_session>(options(true));
        session->run("set 1");
        auto running = session->execute("print a\nsleep 10000", std::nullopt);
        auto queued = session->execute("print b", std::nullopt);
        auto untouched = session->execute("print c", std::nullopt);
        REQUIRE(running->next());
        session.reset();
        CHECK(contains(failure_of(*running), "kernel_died: The kernel died"));
        CHECK(contains(failure_of(*queued), "start_failed: the kernel session was stopped"));
        untouched->cancel();  // calls on a stream of a session that is gone are harmless
        untouched->pause_timeout();
        untouched.reset();
    }

    TEST_CASE_FIXTURE(fake_session_fixture,
                      "a session destroyed while its first kernel starts leaves no kernel "
                      "behind") {
        std::unique_ptr<execution_stream> stream;
        {
            kernel_session session(options(true));
            stream = session.execute("print never", std::nullopt);
        }
        // It never ran, or ran into the stop (should the start have been that quick).
        CHECK_FALSE(failure_of(*stream).empty());
        // A start under way was abandoned and its kernel killed; one not yet begun never began
        // (lifecycle.test.mjs has a start that is certainly under way, with a real kernel).
        for (std::size_t i = 0; i < starts.count(); ++i) {
            CHECK_FALSE(std::filesystem::exists(starts.at(i)));
        }
    }

    TEST_CASE_FIXTURE(fake_session_fixture,
                      "a blocking call on the thread that runs the session's loop is refused") {
        kernel_session session(options());
        session.start();
        std::promise<std::string> refusal;
        boost::asio::post(loop.io, [&] {
            try {
                session.run("print on the loop");
                refusal.set_value("");
            } catch (const std::logic_error& e) {
                refusal.set_value(e.what());
            }
        });
        const auto message = refusal.get_future().get();
        CHECK(contains(message, "kernel_session::run() was called on a thread that runs"));
        // The same call from another thread works.
        CHECK(session.run("print off the loop").result.text == "off the loop");
    }
}
