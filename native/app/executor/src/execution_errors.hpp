#pragma once
// The kernel module's typed failures, translated into the API's one error type.
#include "ipybox/code_executor.hpp"
#include "ipybox/kernel/interpreter.hpp"
#include "ipybox/kernel/kernel_session.hpp"
#include "ipybox/sandbox/srt_launcher.hpp"

namespace ipybox::app {

// Runs `body` and returns what it returns (nothing, for a body that returns void), turning the
// kernel's, the interpreter search's and the sandbox's failures into code_execution_error. Other
// exceptions pass unchanged.
template <typename Body>
auto translate_errors(Body&& body) -> decltype(body()) {
    using kind = code_execution_error::kind;
    try {
        return body();
    } catch (const kernel::execution_error& e) {
        throw code_execution_error(kind::exception, e.what(), e.output(), e.ename(), e.evalue());
    } catch (const kernel::execution_timeout& e) {
        throw code_execution_error(kind::timeout, e.what(), e.output(), "TimeoutError", "",
                                   e.state_kept());
    } catch (const kernel::kernel_died_error& e) {
        throw code_execution_error(kind::kernel_died, e.what(), e.output(), "KernelDied", "",
                                   false);
    } catch (const kernel::kernel_start_error& e) {
        throw code_execution_error(kind::start_failed, e.what(), "", "KernelStartError", "", false);
    } catch (const kernel::interpreter_not_found& e) {
        throw code_execution_error(kind::start_failed, e.what(), "", "InterpreterNotFound", "",
                                   false);
    } catch (const sandbox::sandbox_unavailable& e) {
        throw code_execution_error(kind::start_failed, e.what(), "", "SandboxUnavailable", "",
                                   false);
    }
}

}  // namespace ipybox::app
