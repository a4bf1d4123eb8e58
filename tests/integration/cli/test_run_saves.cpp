// A sandboxed kernel's save into the user library (new_gentool(scope="user")) through
// `ipybox run --sandbox`: asked at a terminal in every --approve mode, refused without one or
// with --approve none; the question shows every file the save writes. Each refusal has its
// control: the same save, answered yes at a terminal, is written.
#include <doctest/doctest.h>

#include <fstream>

#include "cli_runner.hpp"
#include "test_paths.hpp"

using namespace ipybox::testing;

namespace {

struct library_run {
    std::filesystem::path user_library;
    command_result result;
};

const char* save_code =
    "from ipybox_runtime.gentools import new_gentool\n"
    "api = '\"\"\"Whispers.\"\"\"\\n__all__ = [\"run\"]\\n\\ndef run(m):\\n    return "
    "m.lower()\\n'\n"
    "print(new_gentool('hushed', 'whisper', scope='user', files={'api.py': api, 'impl.py': "
    "'# the implementation\\n'}))\n";

// `ipybox run --sandbox` of the save, with `flags`, stdin a terminal or not, `input` typed.
library_run run_save(const std::string& flags, bool terminal, const std::string& input) {
    const auto root = fresh_directory("cli-saves");
    std::filesystem::create_directories(root / "workspace");
    const auto srt = source_dir() / "tests" / "node" / "node_modules" / ".bin" / "srt";
    REQUIRE_MESSAGE(std::filesystem::exists(srt),
                    "install the npm test peers: npm install --prefix tests/node");
    const std::string environment = "IPYBOX_SRT=" + shell_quote(srt.string()) +
                                    " XDG_DATA_HOME=" + shell_quote((root / "data").string());
    const std::string arguments = "run --sandbox --workspace " +
                                  shell_quote((root / "workspace").string()) + " " + flags +
                                  " -c " + shell_quote(save_code);
    library_run run;
    run.user_library = root / "data" / "ipybox" / "gentools";
    run.result = terminal ? run_ipybox_on_terminal(arguments, input, environment)
                          : run_ipybox(arguments, input, environment);
    return run;
}

bool saved(const library_run& run) {
    return std::filesystem::exists(run.user_library / "hushed" / "whisper" / "impl.py");
}

}  // namespace

TEST_SUITE("cli.run.saves") {
    TEST_CASE("at a terminal a save is asked, showing every file: yes saves, no does not") {
        const auto yes = run_save("", true, "y\n");
        INFO(yes.result.err);
        CHECK(yes.result.exit_code == 0);
        CHECK(saved(yes));
        const auto& question = yes.result.err;
        CHECK(question.find("The code asks to save a code action to your user library") !=
              std::string::npos);
        CHECK(question.find("  action:    gentools.hushed.whisper\n") != std::string::npos);
        CHECK(question.find("  file impl.py (21 bytes):\n    | # the implementation\n") !=
              std::string::npos);
        CHECK(question.find("    | def run(m):\n    |     return m.lower()\n") !=
              std::string::npos);
        // A new category: its __init__.py is written too, so it is shown.
        CHECK(question.find("  the category's __init__.py, written only where the category has "
                            "none") != std::string::npos);
        CHECK(question.find("Save it? [y/N] ") != std::string::npos);

        const auto no = run_save("", true, "n\n");
        CHECK(no.result.exit_code == 1);
        CHECK_FALSE(saved(no));
        CHECK(no.result.err.find("ApprovalRejectedError") != std::string::npos);
        // An empty answer is no for a save.
        CHECK_FALSE(saved(run_save("", true, "\n")));
    }

    TEST_CASE("--approve all still asks at a terminal (answered yes: saved, the control)") {
        const auto refused = run_save("--approve all", true, "n\n");
        CHECK_FALSE(saved(refused));
        CHECK(refused.result.err.find("Save it? [y/N] ") != std::string::npos);
        CHECK(saved(run_save("--approve all", true, "y\n")));
    }

    TEST_CASE("without a terminal a save is refused, whatever --approve says") {
        for (const auto* flags : {"", "--approve all", "--approve ask"}) {
            CAPTURE(flags);
            const auto run = run_save(flags, false, "y\ny\n");
            CHECK_FALSE(saved(run));
            CHECK(run.result.exit_code == 1);
            CHECK(run.result.err.find("saves into the user library are asked at a terminal, and "
                                      "stdin is not one") != std::string::npos);
            CHECK(run.result.err.find("[y/N]") == std::string::npos);
        }
    }

    TEST_CASE("--approve none refuses a save without asking, even at a terminal") {
        const auto run = run_save("--approve none", true, "y\n");
        CHECK_FALSE(saved(run));
        CHECK(run.result.err.find("[y/N]") == std::string::npos);
        CHECK(run.result.err.find("refuses saves into the user library") != std::string::npos);
    }
}
