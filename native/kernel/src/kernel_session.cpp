#include "ipybox/kernel/kernel_session.hpp"

#include "ipybox/core/log.hpp"

namespace ipybox::kernel {
namespace {

using clock = std::chrono::steady_clock;

}  // namespace

kernel_session::kernel_session(session_options options) : options_(std::move(options)) {
    if (options_.images_directory.empty()) {
        options_.images_directory = options_.launch.working_directory / "images";
    }
    options_.launch.output_cap = options_.max_output_bytes;
}

kernel_session::~kernel_session() {
    try {
        stop();
    } catch (const std::exception& e) {
        core::logger("kernel")->error("stopping the kernel session failed: {}", e.what());
    }
}

std::shared_ptr<kernel_instance> kernel_session::start_kernel() const {
    std::shared_ptr<kernel_instance> kernel = kernel_instance::start(options_.launch);
    kernel->wait_ready(clock::now() + options_.start_timeout);
    return kernel;
}

void kernel_session::start() {
    std::vector<std::string> ignored;
    ensure_kernel(ignored);
}

std::shared_ptr<kernel_instance> kernel_session::ensure_kernel(std::vector<std::string>& notices) {
    std::lock_guard lock(state_mutex_);
    if (stopped_) throw kernel_start_error("the kernel session was stopped");
    if (current_ && !current_->alive()) {
        core::logger("kernel")->debug("kernel {} is dead: {}", current_->pid(),
                                      current_->exit_reason());
        notices.push_back("The previous kernel died (" + current_->exit_reason() +
                          "); this code ran in a fresh kernel, so variables, imports and "
                          "definitions from before are gone.");
        replace_kernel();
    }
    if (!current_) {
        current_ = start_kernel();
        if (options_.keep_spare) start_spare();
    }
    return current_;
}

void kernel_session::start_spare() {
    if (spare_ || stopped_) return;
    spare_ = std::async(std::launch::async, [this] { return start_kernel(); });
}

void kernel_session::retire(std::shared_ptr<kernel_instance> kernel) {
    if (!kernel) return;
    std::erase_if(retiring_, [](auto& done) {
        return done.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
    });
    retiring_.push_back(std::async(std::launch::async, [kernel = std::move(kernel)] {
        try {
            kernel->shutdown(std::chrono::milliseconds(500));
        } catch (const std::exception& e) {
            core::logger("kernel")->warn("retiring kernel {} failed: {}", kernel->pid(), e.what());
        }
    }));
}

void kernel_session::replace_kernel() {
    core::logger("kernel")->debug("replacing kernel {}", current_ ? current_->pid() : 0);
    std::shared_ptr<kernel_instance> fresh;
    if (spare_) {
        auto spare = std::move(*spare_);
        spare_.reset();
        try {
            fresh = spare.get();
            if (!fresh->alive()) fresh.reset();
        } catch (const std::exception& e) {
            core::logger("kernel")->warn("the spare kernel failed to start: {}", e.what());
        }
    }
    if (!fresh) fresh = start_kernel();
    retire(std::move(current_));
    current_ = std::move(fresh);
    if (options_.keep_spare) start_spare();
}

std::unique_ptr<execution_stream> kernel_session::execute(
    const std::string& code, std::optional<std::chrono::milliseconds> timeout) {
    // ipykernel fails on such code without replying, so the execution would time out and the
    // kernel be restarted, its state lost. Refused here, before anything reaches the kernel.
    if (const auto nul = code.find('\0'); nul != std::string::npos) {
        throw execution_error("ValueError",
                              "the code contains a NUL byte (at byte " + std::to_string(nul) +
                                  "), which Python source cannot contain. Nothing was run; the "
                                  "kernel and its state are unchanged.",
                              "", "");
    }
    // The turn travels with the stream, which passes it on when its execution ends.
    core::ticket_turn turn(execution_slot_);
    std::vector<std::string> notices;
    auto kernel = ensure_kernel(notices);
    auto pending = kernel->execute(code);
    std::unique_ptr<execution_stream> stream(new execution_stream(
        *this, std::move(turn), kernel, std::move(pending), timeout, std::move(notices)));
    std::lock_guard lock(state_mutex_);
    running_ = stream.get();
    return stream;
}

void kernel_session::release(execution_stream* stream) {
    {
        std::lock_guard lock(state_mutex_);
        if (running_ == stream) running_ = nullptr;
    }
    stream->turn_.release();
}

execution_result kernel_session::run(const std::string& code,
                                     std::optional<std::chrono::milliseconds> timeout) {
    auto stream = execute(code, timeout);
    while (!stream->finished()) stream->next();
    return stream->finish();
}

void kernel_session::cancel() {
    std::lock_guard lock(state_mutex_);
    if (running_ != nullptr) running_->request_cancel();
}

void kernel_session::reset() {
    core::ticket_turn turn(execution_slot_);
    std::lock_guard lock(state_mutex_);
    if (current_) {
        replace_kernel();
    } else if (!stopped_) {
        current_ = start_kernel();
        if (options_.keep_spare) start_spare();
    }
}

void kernel_session::stop() {
    std::vector<std::future<void>> retiring;
    std::optional<std::future<std::shared_ptr<kernel_instance>>> spare;
    {
        std::lock_guard lock(state_mutex_);
        if (running_ != nullptr) running_->request_cancel();
        stopped_ = true;
        retire(std::move(current_));
        current_.reset();
        spare = std::move(spare_);
        spare_.reset();
        retiring.swap(retiring_);
    }
    if (spare) {
        try {
            if (auto kernel = spare->get()) kernel->shutdown(std::chrono::milliseconds(500));
        } catch (const std::exception&) {  // a spare that never started has nothing to stop
        }
    }
    for (auto& done : retiring) done.wait();
}

int kernel_session::kernel_pid() const {
    std::lock_guard lock(state_mutex_);
    return current_ ? current_->pid() : 0;
}

}  // namespace ipybox::kernel
