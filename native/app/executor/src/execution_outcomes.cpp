#include "execution_outcomes.hpp"

#include "ipybox/kernel/interpreter.hpp"
#include "ipybox/kernel/kernel_instance.hpp"
#include "ipybox/sandbox/srt_launcher.hpp"

namespace ipybox::app {

code_execution_step to_api(kernel::execution_outcome&& outcome) {
    using kind = kernel::execution_outcome::kind;
    using failure_kind = code_execution_failure::kind;
    auto& result = outcome.result;
    const auto failure = [&](failure_kind why, std::string ename) {
        return code_execution_failure{why,
                                      std::move(outcome.message),
                                      std::move(result.text),
                                      std::move(ename),
                                      std::move(outcome.evalue),
                                      outcome.state_kept};
    };
    switch (outcome.ending) {
        case kind::completed:
        case kind::cancelled:
            break;
        case kind::exception:
            return failure(failure_kind::exception, std::move(outcome.ename));
        case kind::timeout:
            return failure(failure_kind::timeout, "TimeoutError");
        case kind::kernel_died:
            return failure(failure_kind::kernel_died, "KernelDied");
        case kind::start_failed:
            return failure(failure_kind::start_failed, "KernelStartError");
    }
    return code_execution_result{
        std::move(result.text),    std::move(result.images),    outcome.ending == kind::cancelled,
        std::move(result.notices), result.omitted_output_bytes, result.kernel_micros};
}

code_execution_failure start_failure(const std::exception_ptr& error) {
    const auto failed = [](const std::exception& e, const char* ename) {
        return code_execution_failure{
            code_execution_failure::kind::start_failed, e.what(), "", ename, "", false};
    };
    try {
        std::rethrow_exception(error);
    } catch (const kernel::kernel_start_error& e) {
        return failed(e, "KernelStartError");
    } catch (const kernel::interpreter_not_found& e) {
        return failed(e, "InterpreterNotFound");
    } catch (const sandbox::sandbox_unavailable& e) {
        return failed(e, "SandboxUnavailable");
    }
}

}  // namespace ipybox::app
