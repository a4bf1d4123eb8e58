#include <doctest/doctest.h>

#include <thread>

#include "executor_fixture.hpp"

using namespace ipybox;
using ipybox::testing::executor_options_for;
using ipybox::testing::expect_error;

TEST_SUITE("kernel.errors") {
    TEST_CASE("a syntax error names SyntaxError") {
        code_executor executor(executor_options_for("syntax"));
        const auto error = expect_error(executor, "def broken(:");
        CHECK(error.ename() == "SyntaxError");
        CHECK(error.error_kind() == code_execution_error::kind::exception);
    }

    TEST_CASE("a runtime error carries ename, evalue and a traceback through the frames") {
        code_executor executor(executor_options_for("traceback"));
        const auto error = expect_error(executor, "def foo():\n    return 1 / 0\nfoo()");
        CHECK(error.ename() == "ZeroDivisionError");
        CHECK(error.evalue() == "division by zero");
        const std::string text = error.what();
        CHECK(text.rfind("ZeroDivisionError: division by zero\n", 0) == 0);
        CHECK(text.find("foo") != std::string::npos);
    }

    TEST_CASE("tracebacks contain no ANSI escape codes") {
        code_executor executor(executor_options_for("ansi"));
        const std::string text = expect_error(executor, "1 / 0").what();
        CHECK(text.find('\x1b') == std::string::npos);
    }

    TEST_CASE("output printed before an error is kept on the error") {
        code_executor executor(executor_options_for("partial"));
        const auto error =
            expect_error(executor, "print('before')\nraise ValueError('test error')");
        CHECK(error.output() == "before");
        CHECK(error.ename() == "ValueError");
        CHECK(error.evalue() == "test error");
    }

    TEST_CASE("the kernel stays usable after an error") {
        code_executor executor(executor_options_for("after-error"));
        expect_error(executor, "undefined_name");
        CHECK(executor.execute("print('still here')").text == "still here");
    }

    TEST_CASE("shell output through ! has no colour codes") {
        code_executor executor(executor_options_for("shell"));
        const auto text = executor.execute("!ls -a --color=auto /").text;
        CHECK(text.find('\x1b') == std::string::npos);
        CHECK(text.find("..") != std::string::npos);
    }
}

TEST_SUITE("kernel.streaming") {
    TEST_CASE("output arrives in chunks while the code runs, then the result") {
        code_executor executor(executor_options_for("chunks"));
        auto stream =
            executor.stream("import time\nprint('first')\ntime.sleep(0.5)\nprint('second')");
        std::vector<std::string> chunks;
        std::optional<code_execution_result> result;
        while (auto event = stream.next()) {
            if (auto* chunk = std::get_if<code_execution_chunk>(&*event)) {
                chunks.push_back(chunk->text);
            } else {
                result = std::get<code_execution_result>(*event);
            }
        }
        CHECK(chunks == std::vector<std::string>{"first\n", "second\n"});
        REQUIRE(result);
        CHECK(result->text == "first\nsecond");
    }

    TEST_CASE("stderr chunks are marked as stderr") {
        code_executor executor(executor_options_for("stderr"));
        auto stream = executor.stream("import sys\nprint('oops', file=sys.stderr)");
        bool saw_stderr = false;
        while (auto event = stream.next()) {
            if (auto* chunk = std::get_if<code_execution_chunk>(&*event)) {
                saw_stderr |= chunk->stream == "stderr" && chunk->text == "oops\n";
            }
        }
        CHECK(saw_stderr);
    }

    TEST_CASE("a failing stream raises after delivering its chunks") {
        code_executor executor(executor_options_for("stream-error"));
        auto stream = executor.stream("print('partial')\nraise RuntimeError('boom')");
        int chunks = 0;
        CHECK_THROWS_AS(
            [&] {
                while (auto event = stream.next()) chunks += event->index() == 0 ? 1 : 0;
            }(),
            code_execution_error);
        CHECK(chunks == 1);
    }

    TEST_CASE("an image is announced as a chunk with its path") {
        code_executor executor(executor_options_for("image-chunk"));
        auto stream =
            executor.stream("import matplotlib.pyplot as plt\nplt.plot([1, 2]); plt.show()");
        std::optional<std::filesystem::path> image;
        while (auto event = stream.next()) {
            if (auto* chunk = std::get_if<code_execution_chunk>(&*event)) {
                if (chunk->image) image = chunk->image;
            }
        }
        REQUIRE(image);
        CHECK(std::filesystem::exists(*image));
    }

    TEST_CASE("output of many small prints with awaits in between is exact") {
        code_executor executor(executor_options_for("chunked"));
        const auto result = executor.execute(
            "import asyncio\nfor i in range(100):\n    print(i)\n    await asyncio.sleep(0.01)");
        std::string expected;
        for (int i = 0; i < 100; ++i) expected += std::to_string(i) + (i < 99 ? "\n" : "");
        CHECK(result.text == expected);
    }
}
