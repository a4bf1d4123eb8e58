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
    // `disabled_reason`: why kernels start cold from the outset ("" to fork them).
    template_holder(kernel_launch launch, std::chrono::milliseconds start_timeout,
                    std::string disabled_reason);
    ~template_holder();

    // A kernel: forked from the running template when there is one; else, when `may_wait`, from
    // a template started now (blocking while it imports); else started cold. Throws
    // kernel_start_error.
    std::unique_ptr<kernel_instance> start_kernel(bool may_wait);

    // A kernel forked from the template did not become ready (`failure`): it ended before it
    // served (it could not join its control groups, say: it fails closed) or stayed silent. The
    // template is given up, kernels start cold from now on, and this returns one started cold.
    // Throws kernel_start_error.
    std::unique_ptr<kernel_instance> start_cold_after(const std::string& failure);

    // Why kernels start cold ("" while they are forked).
    std::string cold_reason() const;
    // True while a template is up: a kernel started now is forked without waiting for imports.
    bool forking() const;
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
    const std::chrono::milliseconds start_timeout_;
    mutable std::mutex mutex_;
    std::mutex starting_;  // one template start at a time
    std::shared_ptr<kernel_template> template_;
    std::string cold_reason_;
    int failed_starts_ = 0;  // template starts that failed in a row (mutex_)
    // Shared with a template being started, which may outlive this holder.
    const std::shared_ptr<std::atomic<bool>> abandoned_ =
        std::make_shared<std::atomic<bool>>(false);
    void throw_if_abandoned() const;
};

}  // namespace ipybox::kernel::detail
