#pragma once
// A kernel template shared by several kernel sessions (session_options::shared_template): the
// kernels of many sessions, each with its own working directory, tool server and limits, forked
// from one process that did a kernel's imports once. Their pages stay shared with that process,
// so an idle kernel costs what it wrote since its fork rather than a whole interpreter (the
// kernels of `ipybox mcp` over HTTP).
//
// A session shares it when its kernels differ from the template only in what a fork request
// carries:
//  * the working directory, limits and control groups;
//  * the variables its launch names as its own (kernel_launch::own_variables: its tool server's
//    socket and token, say). The template starts without them, so that no kernel finds another
//    session's in the memory or the environment block it inherits;
//  * the PYTHONPATH entries inside its working directory (its workspace's packages). Each child
//    puts its own entries where a cold kernel has them on sys.path; a kernel whose own entries
//    hold a top-level module the template imported starts cold instead (it would keep the
//    template's version).
// The first session that asks for a kernel fixes the rest (interpreter, runtime, environment,
// the folder for private directories, the loop). A session that differs in any of it, or whose
// kernels are sandboxed (launch.wrap), keeps a template of its own, as without sharing.
//
// Kernels of sharing sessions are forked whenever they can be: a start waits for the template's
// imports (once, for all the sessions) rather than start cold. The template is replaced when it
// dies or goes out of date (a package installed where it imports from), and given up for every
// session when forking cannot work here (template_holder.hpp, kernel_template.hpp).
//
// Thread-safety: every method may be called from any thread. The template's output and exit are
// watched on the first session's launch.io, which must run until this object and every kernel
// forked from it are gone.
#include <chrono>
#include <memory>
#include <string>

#include "ipybox/kernel/kernel_instance.hpp"

namespace ipybox::kernel {

namespace detail {
class template_holder;
class session_core;
}  // namespace detail

class shared_kernel_template {
  public:
    explicit shared_kernel_template(
        std::chrono::milliseconds start_timeout = std::chrono::seconds(30));
    ~shared_kernel_template();  // stop()

    shared_kernel_template(const shared_kernel_template&) = delete;
    shared_kernel_template& operator=(const shared_kernel_template&) = delete;

    // Ends the template (each kernel it forked keeps it while it runs), and a start of it in
    // progress gives up within a tenth of a second; sharing sessions start their kernels cold
    // from now on.
    void stop();
    // Why sharing sessions' kernels start cold; "" while they are forked, or before any is.
    std::string cold_reason() const;
    // The running template's PID; 0 when none runs (diagnostics and tests).
    int pid() const;

  private:
    friend class detail::session_core;
    // The holder for kernels launched as `launch`, or null (with the reason in `why_not`) when
    // they cannot share the template.
    std::shared_ptr<detail::template_holder> holder_for(const kernel_launch& launch,
                                                        std::string& why_not);

    struct state;
    std::unique_ptr<state> state_;
};

// The launch a template shared by kernels launched as `launch` is started with: without their
// own variables and the PYTHONPATH entries inside their working directory, in the runtime's
// folder. Two launches share a template when theirs match (template_compatibility).
kernel_launch shared_template_launch(const kernel_launch& launch);
// "" when kernels launched as `a` and as `b` can share one template; else the difference.
std::string template_compatibility(const kernel_launch& a, const kernel_launch& b);

}  // namespace ipybox::kernel
