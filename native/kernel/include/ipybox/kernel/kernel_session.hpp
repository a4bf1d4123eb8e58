#pragma once
// A stateful Python session: one current kernel, optionally pre-started spares, and the rules
// that keep the session usable whatever the code does.
//
// A session is one queue. Executions, resets and starts are operations in one FIFO: each runs
// alone, in the order submitted, and the next starts only once it is over. The queue lives on
// the session's strand (an Asio strand on the loop its kernels use, launch.io), which alone
// touches the session's state: submitting, cancelling and the kernel's replies are messages to
// it, never locks. Output goes from the kernel's connection straight into the channel of the
// execution at the head (each execution has its own, so outputs never mix); the replies, idle
// statuses and deaths that move the state machine go to the strand, which queues them in the
// channel with the end marker. An execution's timeout clock pauses and resumes (approvals)
// under a lock of its own, read by the strand's timer. Blocking work (starting and shutting
// kernels down, the reset hook) runs on a small bounded pool, never on the loop.
//
// The states, of the operation at the head of the queue:
//
//   idle          ─ head is an execution or a start, no live kernel ──────────────► starting
//   idle          ─ head is an execution, a live kernel: request sent ─────────────► executing
//   idle          ─ head is a reset (on_turn runs first, on the pool) ────────────► resetting
//   starting      ─ a kernel is ready (the spare if there is one) ─► idle, the head goes on
//   starting      ─ the start failed ─► idle, the head fails (start_failed; kernel_start_error
//                   for a start or a reset)
//   executing     ─ reply and idle status (or the reply and no status within 5 s) ─► ending
//   executing     ─ timeout, cancel() ─ interrupt_request on control ─────────────► interrupting
//   interrupting  ─ reply and idle status ─────────────────────────────────────────► ending
//   interrupting  ─ interrupt_grace passed: the kernel is retired, the state lost ─► ending
//   executing, interrupting ─ the kernel died ─────────────────────────────────────► ending
//   ending        ─ the execution's stream released it ─► idle, the next operation
//   resetting     ─ a fresh kernel is ready (the spare, else a new one) ───────────► idle
//   any           ─ stop() ─────────────────────────────────────────────────────────► stopped
//
// Interrupts are control messages, not operations: cancel() goes straight to the strand, ahead
// of everything queued (the running execution waits there for kernel events, not for a turn),
// and acts on the execution running at that moment only; in any other state it does nothing. An
// execution's own stream can cancel it wherever it is: while queued it leaves the queue without
// running. The timeout counts from the moment the code is sent, not from submission.
//
// Rules that keep the session usable:
//  * A timeout interrupts the kernel and keeps its state. Code that does not stop when
//    interrupted gets the kernel retired after `interrupt_grace` (the next operation starts a
//    fresh one), and the error says the state was lost.
//  * A kernel that dies (os._exit, a segfault, the OOM killer) fails the running execution at
//    once; the next operation runs in a fresh kernel, and an execution's result carries a notice.
//  * When the kernel is lost during an execution (it died, or ignored the interrupt), the
//    executions queued behind it up to the next reset end at once without running, as
//    kernel_died saying so: they were written for the state that is gone.
//  * reset() swaps in the spare kernel (fast), retires the old one in the background and starts
//    a new spare. While resets come back to back faster than a forked kernel starts (one finds
//    its spare still starting), two spares are kept, started side by side; one again once
//    back_to_back_within passes without a reset or restart (the extra spare is shut down).
//  * Kernels are forked from the session's kernel template (fork_kernels): the spare always
//    (the first one waits for the template's imports), any other start when the template is up
//    (else it starts cold, without waiting). A template that died, or that saw a package
//    installed since its imports, is replaced; where forking cannot work, kernels start cold.
//
// Thread-safety: every method may be called from any thread. The blocking ones (start, run,
// reset, stop, and the stream's waits) throw std::logic_error on a thread that runs the
// session's loop: they wait for work that thread must do. Ownership: launch.io must run until
// the session and its streams are gone; the session owns its kernels; streams may outlive it.
#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "ipybox/kernel/execution.hpp"
#include "ipybox/kernel/execution_stream.hpp"
#include "ipybox/kernel/kernel_instance.hpp"
#include "ipybox/kernel/shared_kernel_template.hpp"

namespace ipybox::core {
class work_pool;
}

namespace ipybox::kernel {

struct session_options {
    kernel_launch launch;  // launch.io is required: the session's strand runs on it
    std::filesystem::path images_directory;  // empty: <working directory>/images
    std::size_t max_output_bytes = 8 * 1024 * 1024;
    std::chrono::milliseconds start_timeout{30000};
    std::chrono::milliseconds interrupt_grace{3000};
    bool keep_spare = true;
    // Resets (and restarts) this close together are back to back: two spares are kept while
    // they come so, one again once this long passes without one.
    std::chrono::milliseconds back_to_back_within{1000};
    // Kernels are forked from a kernel template (a process that has done a kernel's imports)
    // instead of started cold: the spare, and the kernel of every start once the template is
    // up. Off: every kernel starts cold (cold_start_reason says why).
    bool fork_kernels = true;
    std::string fork_disabled_reason = "forking kernels is turned off";
    // With fork_kernels: a template shared with other sessions, used instead of one of the
    // session's own when the launch allows it (shared_kernel_template.hpp). Every start then
    // waits for its imports rather than start cold; stop() leaves it to its owner.
    std::shared_ptr<shared_kernel_template> shared_template;
};

class kernel_session {
  public:
    // Throws std::invalid_argument without launch.io.
    explicit kernel_session(session_options options);
    ~kernel_session();  // stop()

    kernel_session(const kernel_session&) = delete;
    kernel_session& operator=(const kernel_session&) = delete;

    // Returns once a kernel is ready: at once if one is (also while an execution runs), else
    // after the operations queued before and the start (then a spare starts in the background).
    // Throws kernel_start_error.
    void start();

    // Queues `code` and returns its stream at once; the code is sent when its turn comes.
    // `on_start`, when given, runs on the strand just before that (it must not block); it does
    // not run for an execution that never starts. Code with a NUL byte is refused at once (its
    // stream is finished, the outcome an exception, ValueError): ipykernel would not answer it.
    // How any execution ends is its stream's outcome (execution.hpp), never an exception.
    std::unique_ptr<execution_stream> execute(const std::string& code,
                                              std::optional<std::chrono::milliseconds> timeout,
                                              std::function<void()> on_start = {});
    // execute() and consume to the end.
    execution_outcome run(const std::string& code,
                          std::optional<std::chrono::milliseconds> timeout = std::nullopt);

    // Interrupts the running execution, which then finishes as cancelled. No-op when none runs.
    void cancel();
    // A fresh kernel, after the operations queued before; `on_turn`, when given, runs on the
    // pool when the reset's turn comes, before the swap (for host-side state tied to the kernel).
    // reset() waits; async_reset() returns at once and calls `done` on the strand (with the
    // failure, if any: kernel_start_error).
    void reset(std::function<void()> on_turn = {});
    void async_reset(std::function<void()> on_turn, std::function<void(std::exception_ptr)> done);
    // Ends what runs and what waits (executions end as after a kernel death, or as never run),
    // then shuts every kernel down. The session cannot be used afterwards.
    void stop();
    // True once every stream of this session has been released (or destroyed), false if
    // `timeout` passed first; for owners whose streams use what the owner is about to destroy.
    bool wait_streams_released(std::chrono::milliseconds timeout);

    // The current kernel's pid (0 if none), for diagnostics and tests.
    int kernel_pid() const;
    // Why new kernels start cold rather than forked from the template; "" while they are forked.
    std::string cold_start_reason() const;
    // The spare kernels now, ready and starting (one is kept; two while resets come back to
    // back), for diagnostics and tests.
    struct spare_kernels {
        std::size_t ready = 0;
        std::size_t starting = 0;
    };
    spare_kernels spares() const;
    const session_options& options() const;

  private:
    std::unique_ptr<core::work_pool> blocking_work_;
    std::shared_ptr<detail::session_core> core_;
    std::atomic<bool> stopped_{false};
};

}  // namespace ipybox::kernel
