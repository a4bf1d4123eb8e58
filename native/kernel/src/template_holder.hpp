#pragma once
// A session's kernel template (private to the kernel module): started when first wanted, started
// again when it died or found a package installed since its imports, and given up for good (with
// the reason) when forking cannot work here, is turned off, or the template failed to start three
// times in a row (one failed start, a timeout on a loaded machine say, makes only that kernel
// start cold). See kernel_template.hpp.
//
// Thread-safety: every method may be called from any thread (the session's pool starts kernels).
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "ipybox/kernel/kernel_instance.hpp"

namespace ipybox::kernel::detail {

class template_holder {
  public:
    // `launch`: the template's own (shared_kernel_template.hpp: without any one kernel's
    // variables when sessions share it). `disabled_reason`: why kernels start cold from the
    // outset ("" to fork them).
    // `shared`: several sessions use it (shared_kernel_template), and only its owner stops it.
    template_holder(kernel_launch launch, std::chrono::milliseconds start_timeout,
                    std::string disabled_reason, bool shared = false);
    ~template_holder();

    // A kernel launched as `launch` (the template's, or one that differs from it only in what a
    // fork request carries): forked from the running template when there is one; else, when
    // `may_wait`, from a template started now (blocking while it imports); else started cold.
    // Also cold when the template finds the kernel's own PYTHONPATH entries unsuitable. Throws
    // kernel_start_error.
    std::unique_ptr<kernel_instance> start_kernel(const kernel_launch& launch, bool may_wait);

    // A kernel forked from the template did not become ready (`failure`): it ended before it
    // served (it could not join its control groups, say: it fails closed) or stayed silent. The
    // template is given up, kernels start cold from now on, and this returns one started cold.
    // A shared template is given up only once that happens max_failed_starts times in a row
    // (forked_kernel_ready() ends a row): one session's kernel may fail for reasons of its own
    // (a memory limit too low to start in), which must not cost the others their forks.
    // Throws kernel_start_error.
    std::unique_ptr<kernel_instance> start_cold_after(const kernel_launch& launch,
                                                      const std::string& failure);
    // A kernel forked from the template became ready.
    void forked_kernel_ready();

    // Why kernels start cold ("" while they are forked).
    std::string cold_reason() const;
    // True while a template is up: a kernel started now is forked without waiting for imports.
    bool forking() const;
    bool shared() const { return shared_; }
    // The running template's PID; 0 when none runs.
    int template_pid() const;
    // Ends the template (once its kernels are shut down); kernels start cold afterwards.
    void stop();
    // The session is stopping: a template start in progress gives up within a tenth of a second,
    // and every start_kernel() from now on throws kernel_start_error instead of starting one.
    void abandon_starts();

  private:
    std::shared_ptr<kernel_template> current(bool may_start);
    void give_up(const std::string& reason);
    void failed_start(const std::string& reason);

    static constexpr int max_failed_starts = 3;

    const kernel_launch launch_;
    const bool shared_;
    const std::chrono::milliseconds start_timeout_;
    mutable std::mutex mutex_;
    std::mutex starting_;  // one template start at a time
    std::shared_ptr<kernel_template> template_;
    std::string cold_reason_;
    int failed_starts_ = 0;  // template starts that failed in a row (mutex_)
    int failed_forks_ = 0;   // forked kernels that failed to become ready in a row (mutex_)
    // Shared with a template being started, which may outlive this holder.
    const std::shared_ptr<std::atomic<bool>> abandoned_ =
        std::make_shared<std::atomic<bool>>(false);
    void throw_if_abandoned() const;
};

}  // namespace ipybox::kernel::detail
