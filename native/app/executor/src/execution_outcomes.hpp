#pragma once
// Where the kernel's outcome of an execution becomes the C++ API's: each ending is converted
// here, once, as a value (the front ends then convert the API's value once more, into an MCP
// result or an exit code; only the blocking API turns a failure into an exception).
#include <exception>

#include "ipybox/code_executor.hpp"
#include "ipybox/kernel/execution.hpp"

namespace ipybox::app {

// The result of a completed or cancelled execution, or the failure of any other.
code_execution_step to_api(kernel::execution_outcome&& outcome);

// The failure to start a kernel that `error` holds (the interpreter search, the sandbox runtime,
// the kernel's start: kernel_start_error, interpreter_not_found, sandbox_unavailable), as
// start_failed named after its type. Rethrows any other exception: that is not a failed start
// but a bug or an I/O failure of another kind.
code_execution_failure start_failure(const std::exception_ptr& error);

}  // namespace ipybox::app
