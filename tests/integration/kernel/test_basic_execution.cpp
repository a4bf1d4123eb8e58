// The examples of the reference's code-execution guide: basic execution, state, working
// directory, kernel environment, plots, top-level await.
#include <doctest/doctest.h>

#include <fstream>

#include "executor_fixture.hpp"

using namespace ipybox;
using ipybox::testing::executor_options_for;

TEST_SUITE("kernel.basic") {
    TEST_CASE("prints come back as the result text") {
        code_executor executor(executor_options_for("print"));
        CHECK(executor.execute("print('hello world')").text == "hello world");
    }

    TEST_CASE("the value of the last expression is part of the text") {
        code_executor executor(executor_options_for("expression"));
        CHECK(executor.execute("2 + 2").text == "4");
    }

    TEST_CASE("several outputs keep their order and a display does not run into a print") {
        code_executor executor(executor_options_for("order"));
        CHECK(executor.execute("print('a')\nprint('b')\nprint('c')").text == "a\nb\nc");
        CHECK(executor.execute("display(1); print(2)").text == "1\n2");
    }

    TEST_CASE("code without output and empty code give empty text") {
        code_executor executor(executor_options_for("empty"));
        CHECK(executor.execute("x = 42").text.empty());
        const auto empty = executor.execute("");
        CHECK(empty.text.empty());
        CHECK(empty.images.empty());
    }

    TEST_CASE("variables, functions and imports persist across executions") {
        code_executor executor(executor_options_for("state"));
        executor.execute("x = 41\ndef add(a, b):\n    return a + b\nimport math");
        CHECK(executor.execute("print(x + 1)").text == "42");
        CHECK(executor.execute("add(10, 20)").text == "30");
        CHECK(executor.execute("math.pi").text.rfind("3.14", 0) == 0);
    }

    TEST_CASE("two executors have isolated kernels") {
        code_executor first(executor_options_for("isolated-a"));
        code_executor second(executor_options_for("isolated-b"));
        first.execute("only_here = 1");
        const auto error = testing::expect_error(second, "only_here");
        CHECK(error.ename() == "NameError");
    }

    TEST_CASE("top-level await works") {
        code_executor executor(executor_options_for("await"));
        CHECK(executor.execute("import asyncio\nawait asyncio.sleep(0.01)\n'done'").text ==
              "'done'");
    }

    TEST_CASE("the kernel's working directory is the workspace") {
        auto options = executor_options_for("cwd");
        const auto workspace = std::filesystem::weakly_canonical(options.workspace);
        code_executor executor(options);
        CHECK(executor.execute("import os; print(os.getcwd())").text == workspace.string());
    }

    TEST_CASE("workspace modules stay importable after the code changes directory") {
        auto options = executor_options_for("import-root");
        std::ofstream(options.workspace / "helper_mod.py") << "VALUE = 7\n";
        code_executor executor(options);
        executor.execute("import os; os.chdir('/')");
        CHECK(executor.execute("import helper_mod; helper_mod.VALUE").text == "7");
    }

    TEST_CASE("kernel_env reaches the kernel and other host variables do not") {
        auto options = executor_options_for("env");
        options.kernel_env["TEST_VAR"] = "test_val";
        options.host_environment["IPYBOX_TEST_SECRET"] = "do-not-leak";
        code_executor executor(options);
        CHECK(executor.execute("import os; os.environ['TEST_VAR']").text == "'test_val'");
        CHECK(executor.execute("import os; 'IPYBOX_TEST_SECRET' in os.environ").text == "False");
        CHECK(executor.execute("import os; bool(os.environ.get('PATH'))").text == "True");
    }

    TEST_CASE("a plot is saved as a PNG under the images directory, without figure text") {
        auto options = executor_options_for("plot");
        code_executor executor(options);
        const auto result = executor.execute(
            "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])\nplt.show()\nprint('plotted')");
        REQUIRE(result.images.size() == 1);
        CHECK(result.images[0].parent_path() ==
              std::filesystem::weakly_canonical(options.workspace) / "images");
        CHECK(result.images[0].extension() == ".png");
        CHECK(std::filesystem::file_size(result.images[0]) > 1000);
        CHECK(result.text == "plotted");
    }

    TEST_CASE("two plots give two images in a custom images directory") {
        auto options = executor_options_for("plots");
        options.images_directory = options.workspace / "figures";
        code_executor executor(options);
        const auto result = executor.execute(
            "import matplotlib.pyplot as plt\n"
            "for i in range(2):\n    plt.figure(); plt.plot([i, i + 1]); plt.show()");
        REQUIRE(result.images.size() == 2);
        for (const auto& image : result.images) {
            CHECK(image.parent_path() == options.images_directory);
            CHECK(std::filesystem::exists(image));
        }
    }
}
