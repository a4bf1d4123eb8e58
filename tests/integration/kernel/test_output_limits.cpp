#include <doctest/doctest.h>

#include <algorithm>

#include "executor_fixture.hpp"
#include "process_inspection.hpp"

using namespace ipybox;
using ipybox::testing::executor_options_for;

TEST_SUITE("kernel.output") {
    TEST_CASE("a 500,000 character line comes back exactly") {
        code_executor executor(executor_options_for("long-line"));
        CHECK(executor.execute("print('a' * 500000)").text == std::string(500000, 'a'));
    }

    TEST_CASE("50,000 lines come back exactly") {
        code_executor executor(executor_options_for("many-lines"));
        const auto text = executor.execute("for i in range(50000): print(i)").text;
        CHECK(std::count(text.begin(), text.end(), '\n') == 49999);
        CHECK(text.substr(text.size() - 6) == "\n49999");
    }

    TEST_CASE("a 10,001 line input runs") {
        code_executor executor(executor_options_for("long-input"));
        std::string code = "total = 0\n";
        for (int i = 0; i < 10000; ++i) code += "total += " + std::to_string(i) + "\n";
        code += "total";
        CHECK(executor.execute(code).text == "49995000");
    }

    TEST_CASE(
        "50 MB of output is capped: head and tail kept, the omission counted, memory bounded") {
        auto options = executor_options_for("flood");
        options.max_output_bytes = 1024 * 1024;
        code_executor executor(options);
        executor.execute("1");
        const long before = testing::own_resident_kib();
        const auto result = executor.execute(
            "import sys\nline = 'x' * 1023\nfor i in range(50 * 1024): print(line)\nprint('END')");
        const long growth_mib = (testing::own_resident_kib() - before) / 1024;
        CHECK(result.omitted_output_bytes > 48 * 1024 * 1024);
        CHECK(result.text.size() < 2 * 1024 * 1024);
        CHECK(result.text.find("bytes of output omitted") != std::string::npos);
        CHECK(result.text.substr(result.text.size() - 3) == "END");
        CHECK(growth_mib < 64);
    }

    TEST_CASE("text that is not valid UTF-8 arrives with replacement characters") {
        code_executor executor(executor_options_for("utf8"));
        const auto result = executor.execute("print('ok \\udcff end')");
        CHECK(result.text == "ok \xef\xbf\xbd end");
    }
}

TEST_SUITE("kernel.raw_messages") {
    // Kernel code can send on IOPub itself, past the runtime's pacing of output.
    const char* const raw_stream = R"PY(
k = get_ipython().kernel
k.session.send(k.iopub_socket, 'stream', {'name': 'stdout', 'text': 'y' * SIZE},
               parent=k.get_parent('shell'))
print('sent')
)PY";

    std::string raw_stream_of(std::size_t size) {
        std::string code = raw_stream;
        code.replace(code.find("SIZE"), 4, std::to_string(size));
        return code;
    }

    TEST_CASE(
        "a raw IOPub message over the size limit is dropped with a notice, the kernel lives") {
        code_executor executor(executor_options_for("raw-oversized"));
        const auto result = executor.execute(raw_stream_of(64 * 1024 * 1024));
        CHECK(result.text.find("a message from the kernel on iopub was dropped (over 8388608 "
                               "bytes): output may be missing") != std::string::npos);
        CHECK(result.text.find("sent") != std::string::npos);
        CHECK(result.text.find("yyyy") == std::string::npos);
        CHECK(executor.execute("1 + 1").text == "2");
        // Control: the same raw message, small, arrives as output.
        CHECK(executor.execute(raw_stream_of(10)).text.find(std::string(10, 'y')) !=
              std::string::npos);
    }

    // A payload (text for a pager) travels in the execute_reply on the shell channel, whose
    // bound is 1 MiB: a reply over it is dropped unread, and the cell must not wait for it.
    std::string paged_cell(std::size_t size) {
        return "x = 7\nprint('before')\nget_ipython().payload_manager.write_payload("
               "{'source': 'page', 'data': {'text/plain': 'P' * " +
               std::to_string(size) + "}, 'start': 0})\nprint('after')";
    }

    TEST_CASE("an execute_reply over the reply bound ends the cell at once with the bound named") {
        code_executor executor(executor_options_for("reply-oversized"));
        // Without the rule the cell waits out this timeout and blames the code for ignoring the
        // interrupt; the assertions are on the error, never on the time.
        const auto error =
            testing::expect_error(executor, paged_cell(3000000), std::chrono::seconds(60));
        CHECK(error.ename() == "KernelReplyTooLarge");
        CHECK(std::string(error.what()).find("over 1048576 bytes") != std::string::npos);
        CHECK(error.state_kept());
        CHECK(error.output() == "before\nafter");
        // The kernel lives on with its state.
        CHECK(executor.execute("x").text == "7");
        // Control: a reply just under the bound passes through.
        CHECK(executor.execute(paged_cell(1000000), std::chrono::seconds(60)).text ==
              "before\nafter");
    }
}
