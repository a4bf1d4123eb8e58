// The public face of a kernel session: operations go to its queue (session_core), and the
// blocking calls wait for their completion, from outside the loop.
#include "ipybox/kernel/kernel_session.hpp"

#include <future>

#include "ipybox/core/log.hpp"
#include "ipybox/core/work_pool.hpp"
#include "session_core.hpp"

namespace ipybox::kernel {
namespace {

// Starting a kernel, or two spares, while two retired ones shut down.
constexpr std::size_t blocking_threads = 5;

session_options completed(session_options options) {
    if (options.launch.io == nullptr) {
        throw std::invalid_argument("kernel_session needs launch.io, the loop its strand runs on");
    }
    if (options.images_directory.empty()) {
        options.images_directory = options.launch.working_directory / "images";
    }
    options.launch.output_cap = options.max_output_bytes;
    return options;
}

// Waits for an operation's completion (called on the strand) and rethrows its failure.
class completion_wait {
  public:
    detail::completion callback() {
        return [this](std::exception_ptr failure) { done_.set_value(std::move(failure)); };
    }
    void wait() {
        if (auto failure = done_.get_future().get()) std::rethrow_exception(failure);
    }

  private:
    std::promise<std::exception_ptr> done_;
};

}  // namespace

kernel_session::kernel_session(session_options options)
    : blocking_work_(std::make_unique<core::work_pool>("kernels", blocking_threads)),
      core_(
          std::make_shared<detail::session_core>(completed(std::move(options)), *blocking_work_)) {}

kernel_session::~kernel_session() {
    try {
        stop();
    } catch (const std::exception& e) {
        core::logger("kernel")->error("stopping the kernel session failed: {}", e.what());
    }
}

const session_options& kernel_session::options() const {
    return core_->options();
}

std::string kernel_session::cold_start_reason() const {
    return core_->cold_start_reason();
}

kernel_session::spare_kernels kernel_session::spares() const {
    return core_->spares();
}

int kernel_session::kernel_pid() const {
    return core_->kernel_pid();
}

void kernel_session::start() {
    core_->refuse_on_loop("kernel_session::start()");
    completion_wait started;
    core_->submit_start_check(started.callback());
    started.wait();
}

std::unique_ptr<execution_stream> kernel_session::execute(
    const std::string& code, std::optional<std::chrono::milliseconds> timeout,
    std::function<void()> on_start) {
    auto entry = std::make_shared<detail::queued_execution>();
    entry->code = code;
    entry->timeout = timeout;
    entry->on_start = std::move(on_start);
    std::unique_ptr<execution_stream> stream(new execution_stream(core_, entry));
    // ipykernel fails on such code without replying, so the execution would time out and the
    // kernel be restarted, its state lost. Refused here, before anything reaches the kernel: the
    // stream ends at once (a stream never queued is released without a visit to the queue).
    if (const auto nul = code.find('\0'); nul != std::string::npos) {
        entry->ended = true;
        entry->outcome.never_ran = detail::execution_record::not_run::refused;
        entry->outcome.reason = "the code contains a NUL byte (at byte " + std::to_string(nul) +
                                "), which Python source cannot contain. Nothing was run; the "
                                "kernel and its state are unchanged.";
        entry->channel->events.push(execution_ended{});
        return stream;
    }
    core_->submit(std::move(entry));
    return stream;
}

execution_outcome kernel_session::run(const std::string& code,
                                      std::optional<std::chrono::milliseconds> timeout) {
    core_->refuse_on_loop("kernel_session::run()");
    auto stream = execute(code, timeout);
    while (!stream->finished()) stream->next();
    return stream->finish();
}

void kernel_session::cancel() {
    core_->cancel_running();
}

void kernel_session::reset(std::function<void()> on_turn) {
    core_->refuse_on_loop("kernel_session::reset()");
    completion_wait reset;
    async_reset(std::move(on_turn), reset.callback());
    reset.wait();
}

void kernel_session::async_reset(std::function<void()> on_turn,
                                 std::function<void(std::exception_ptr)> done) {
    core_->submit(detail::queued_reset{std::move(on_turn), std::move(done)});
}

void kernel_session::stop() {
    if (stopped_.exchange(true)) return;
    core_->refuse_on_loop("kernel_session::stop()");
    core_->begin_stopping();
    core_->stop_on_strand();
    blocking_work_->join();  // the kernels being started or retired
    for (auto& kernel : core_->take_leftovers()) {
        try {
            kernel->shutdown(std::chrono::milliseconds(500));
        } catch (const std::exception& e) {
            core::logger("kernel")->warn("stopping kernel {} failed: {}", kernel->pid(), e.what());
        }
    }
    core_->stop_templates();  // while launch.io lives: the template's output is read there
}

bool kernel_session::wait_streams_released(std::chrono::milliseconds timeout) {
    return core_->wait_streams_released(timeout);
}

}  // namespace ipybox::kernel
