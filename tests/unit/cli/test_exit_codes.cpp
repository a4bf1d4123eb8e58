// The exit code of `ipybox run` and `ipybox gentools check` comes from how the execution ended,
// converted in one place (exit_codes.hpp).
#include <doctest/doctest.h>

#include "exit_codes.hpp"

using namespace ipybox;
using namespace ipybox::cli;

TEST_SUITE("cli.exit_codes") {
    TEST_CASE("a completed execution exits 0, a cancelled one 1") {
        code_execution_result result;
        CHECK(exit_code_for(result) == 0);
        result.cancelled = true;
        CHECK(exit_code_for(result) == 1);
    }

    TEST_CASE("an exception, a timeout or a dead kernel exits 1 and a failed start exits 3") {
        using kind = code_execution_failure::kind;
        const auto code_for = [](kind why) {
            code_execution_failure failure;
            failure.error_kind = why;
            return static_cast<int>(exit_code_for(failure));
        };
        CHECK(code_for(kind::exception) == 1);
        CHECK(code_for(kind::timeout) == 1);
        CHECK(code_for(kind::kernel_died) == 1);
        CHECK(code_for(kind::start_failed) == 3);
    }
}
