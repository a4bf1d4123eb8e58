#include "sandbox_fixture.hpp"

#include "test_paths.hpp"
#include "tool_fixture.hpp"

namespace ipybox::testing {

std::filesystem::path srt_executable() {
    return node_module(".bin/srt");
}

kernel_sandbox sandbox_of(nlohmann::json settings, std::filesystem::path srt) {
    kernel_sandbox sandbox;
    sandbox.settings = std::move(settings);
    sandbox.srt = std::move(srt);
    return sandbox;
}

code_executor_options sandboxed(const std::string& name, nlohmann::json settings) {
    auto options = tool_executor_options("sandbox-" + name);
    options.sandbox = sandbox_of(std::move(settings), srt_executable());
    return options;
}

namespace {

// Cell code that runs `action` (Python) and prints "denied <error>" if it raises an OSError.
std::string denied_unless(const std::string& action) {
    return "try:\n    " + action + "\nexcept OSError as e:\n    print('denied', type(e).__name__)";
}

}  // namespace

std::string write_code(const std::filesystem::path& target) {
    return denied_unless("open(" + nlohmann::json(target.string()).dump() +
                         ", 'w').write('x'); print('written')");
}

std::string read_code(const std::filesystem::path& target) {
    return denied_unless("print(open(" + nlohmann::json(target.string()).dump() + ").read())");
}

}  // namespace ipybox::testing
