#pragma once
// The exit codes of every subcommand, and the one place where how an execution ended becomes
// one of them.
#include "ipybox/code_executor.hpp"

namespace ipybox::cli {

enum exit_code : int {
    exit_ok = 0,
    exit_execution_error = 1,  // the code raised, timed out, was cancelled, or the kernel died
    exit_usage = 2,
    exit_start_failed = 3,  // no interpreter, or the kernel did not start
};

// A completed execution succeeds; a cancelled one (Ctrl-C) does not.
inline exit_code exit_code_for(const code_execution_result& result) {
    return result.cancelled ? exit_execution_error : exit_ok;
}

inline exit_code exit_code_for(const code_execution_failure& failure) {
    return failure.error_kind == code_execution_failure::kind::start_failed ? exit_start_failed
                                                                            : exit_execution_error;
}

}  // namespace ipybox::cli
