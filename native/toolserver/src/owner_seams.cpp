#include "owner_seams.hpp"

namespace ipybox::toolserver::detail {
namespace {

constexpr const char* stopping = "ipybox is stopping";

// Leaves the section on every way out, exceptions included.
struct section_exit {
    sections& guard;
    ~section_exit() { guard.leave(); }
};

}  // namespace

bool sections::enter() {
    std::lock_guard lock(mutex_);
    if (closed_) return false;
    ++running_;
    return true;
}

void sections::leave() {
    std::lock_guard lock(mutex_);
    if (--running_ == 0) idle_.notify_all();
}

void sections::close_and_wait() {
    std::unique_lock lock(mutex_);
    closed_ = true;
    idle_.wait(lock, [this] { return running_ == 0; });
}

void guarded_gate::decide(const approval::request& what, approval::decision_handler done) {
    if (!guard_.enter()) return done(approval::decision::reject(stopping));
    section_exit exit{guard_};
    inner_.decide(what, std::move(done));
}

bool guarded_invoker::knows_server(const std::string& server_name) const {
    if (!guard_.enter()) return false;
    section_exit exit{guard_};
    return inner_.knows_server(server_name);
}

void guarded_invoker::invoke(const approval::tool_call& call, outcome_handler done) {
    if (!guard_.enter()) return done(tool_outcome::failure(error_type::server_error, stopping));
    section_exit exit{guard_};
    inner_.invoke(call, std::move(done));
}

void guarded_dependencies::add(const approval::add_dependencies& what, dependency_handler done) {
    if (!guard_.enter()) return done({false, stopping});
    section_exit exit{guard_};
    inner_.add(what, std::move(done));
}

std::string guarded_dependencies::refusal(const approval::add_dependencies& what) const {
    if (!guard_.enter()) return stopping;
    section_exit exit{guard_};
    return inner_.refusal(what);
}

void guarded_dependencies::annotate(approval::add_dependencies& what) const {
    if (!guard_.enter()) return;  // the session is stopping: refusal() said so already
    section_exit exit{guard_};
    inner_.annotate(what);
}

gentool_save_outcome guarded_library::save(const gentool_save& request) {
    if (!guard_.enter()) return gentool_save_outcome::failure(error_type::server_error, stopping);
    section_exit exit{guard_};
    return inner_.save(request);
}

}  // namespace ipybox::toolserver::detail
