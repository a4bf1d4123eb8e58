// Where kernels are not forked from a template (IPYBOX_PLATFORM darwin and portable: Apple's
// frameworks are not safe after fork), every kernel starts cold, the spare included, and the
// session says why; resets still find the spare ready.
#include <doctest/doctest.h>
#include <unistd.h>

#include <string>

#include "executor_fixture.hpp"

using namespace ipybox;
using ipybox::testing::executor_options_for;

TEST_SUITE("kernel.template_posix") {
    TEST_CASE(
        "on this platform every kernel starts cold, spare included, and the reason is given") {
        auto options = executor_options_for("template-posix");
        options.keep_spare_kernel = true;
        code_executor executor(options);
        const auto parent = [&] { return executor.execute("import os; print(os.getppid())").text; };
        CHECK(parent() == std::to_string(::getpid()));
        for (int round = 0; round < 2; ++round) {
            executor.reset();
            CHECK(parent() == std::to_string(::getpid()));  // the spare, started by us
        }
        CHECK(executor.execute("print(6 * 7)").text == "42");
    }
}
