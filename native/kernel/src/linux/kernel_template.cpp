#include "../kernel_template.hpp"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "../kernel_command.hpp"
#include "../path_stamps.hpp"
#include "ipybox/core/json_decode.hpp"
#include "ipybox/core/log.hpp"
#include "ipybox/core/private_directory.hpp"
#include "ipybox/process/signal_state.hpp"

namespace ipybox::kernel {
namespace {

// An answer of the template, which is within reach of the kernels it forked (same user, no
// sandbox): read through the one bounded decoder, and anything else than a JSON object, or a
// field of the wrong type, ends the template's use, never ipybox.
nlohmann::json decode_answer(const std::string& answer) {
    nlohmann::json parsed;
    try {
        parsed =
            core::decode_json(answer, core::json_limits{kernel_template::max_message, 32, 4096});
    } catch (const core::json_decode_error& e) {
        throw template_unavailable(
            std::string("the kernel template answered unreadably: ") + e.what(), false);
    }
    if (!parsed.is_object()) {
        throw template_unavailable("the kernel template answered something else than an object",
                                   false);
    }
    return parsed;
}

std::string text_field(const nlohmann::json& answer, const char* name) {
    const auto found = answer.find(name);
    if (found == answer.end()) return {};
    return found->is_string() ? found->get<std::string>() : found->dump();
}
// The tree tag's stand-in in the template's environment, as long as a tag (32 hex digits): each
// child writes its own tag over it (forked_kernel.py, retag).
constexpr const char* tree_placeholder = "00000000000000000000000000000000";

std::pair<process::unique_fd, process::unique_fd> seqpacket_pair() {
    int ends[2] = {-1, -1};
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ends) != 0) {
        throw kernel_start_error(std::string("cannot create a socket pair: ") +
                                 std::strerror(errno));
    }
    return {process::unique_fd(ends[0]), process::unique_fd(ends[1])};
}

nlohmann::json limits_of(const process::process_rlimits& limits) {
    nlohmann::json out = nlohmann::json::object();
    const auto put = [&](const char* name, const std::optional<std::uint64_t>& value) {
        if (value) out[name] = *value;
    };
    put("address_space", limits.address_space_bytes);
    put("file_size", limits.file_size_bytes);
    put("open_files", limits.open_files);
    put("processes", limits.processes);
    put("cpu_seconds", limits.cpu_seconds);
    return out;
}

}  // namespace

std::shared_ptr<kernel_template> kernel_template::start(
    const kernel_launch& launch, clock::time_point deadline,
    std::shared_ptr<const std::atomic<bool>> abandoned) {
    std::shared_ptr<kernel_template> self(new kernel_template());
    self->abandoned_ = std::move(abandoned);
    auto log = core::logger("kernel");
    process::spawn_options options;
    auto [ours, theirs] = seqpacket_pair();
    try {
        self->directory_ =
            std::make_unique<core::private_directory>("ipybox-t-", launch.runtime_base);
        auto template_launch = launch;
        template_launch.environment["IPYBOX_TREE"] = tree_placeholder;
        const auto wrapping =
            launch.wrap ? launch.wrap(self->directory_->path()) : kernel_wrapping{};
        if (launch.wrap) {
            self->sandboxed_ = true;
            self->settings_now_ = launch.sandbox_settings;
            self->sandbox_settings_ = launch.sandbox_settings(self->directory_->path());
        }
        options = detail::program_spawn_options(template_launch, wrapping, self->directory_->path(),
                                                detail::template_command(launch.python));
        // The template's own lifeline is its channel; each child gets a stdin lifeline of its own.
        options.environment.erase("IPYBOX_LIFELINE");
    } catch (const std::exception& e) {
        throw kernel_start_error(std::string("cannot prepare the kernel template: ") + e.what());
    }
    options.stdin_lifeline = false;
    options.stdin_descriptor = theirs.get();
    // Its first message then carries its PID (SCM_CREDENTIALS), as our PID namespace sees it.
    const int on = 1;
    ::setsockopt(ours.get(), SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
    options.on_output_line = [log](std::string_view line) { log->debug("template: {}", line); };
    options.io = launch.io;
    try {
        self->process_ = process::child_process::spawn(std::move(options));
    } catch (const process::process_error& e) {
        throw kernel_start_error(e.what());
    }
    theirs.reset();
    self->channel_ = std::move(ours);
    std::string answer;
    try {
        answer = self->receive(self->channel_.get(), deadline, &self->python_pid_);
    } catch (const kernel_start_error& e) {
        self->process_->wait_output_end(std::chrono::milliseconds(200));
        throw kernel_start_error(std::string(e.what()) + ". Its last output:\n" +
                                 self->process_->output_tail());
    }
    const auto parsed = decode_answer(answer);
    if (parsed.contains("unable")) throw template_unavailable(text_field(parsed, "unable"), true);
    const auto ready = parsed.find("ready");
    if (ready == parsed.end() || !ready->is_boolean() || !ready->get<bool>()) {
        throw template_unavailable("the kernel template answered something else than ready", false);
    }
    // Read now, before any kernel in its sandbox could reach it.
    const auto attributes = process::attributes_of(self->python_pid_);
    if (!attributes) {
        throw template_unavailable("the kernel template's limits and priorities cannot be read",
                                   false);
    }
    self->attributes_ = *attributes;
    const auto found = parsed.find("watched");
    if (found != parsed.end() && found->is_object()) {
        for (auto it = found->begin(); it != found->end(); ++it) {
            const auto& stamp = it.value();
            if (stamp.is_array() && stamp.size() == 2 && stamp[0].is_number_unsigned() &&
                stamp[1].is_number_unsigned()) {
                self->watched_.emplace_back(it.key(), std::pair{stamp[0].get<std::uint64_t>(),
                                                                stamp[1].get<std::uint64_t>()});
            } else if (stamp.is_null()) {  // not there when the template looked
                self->watched_.emplace_back(it.key(), std::nullopt);
            } else {
                throw template_unavailable("the kernel template answered a stamp that is not one",
                                           false);
            }
        }
    }
    log->debug("kernel template {} ready", self->process_->pid());
    return self;
}

kernel_template::~kernel_template() {
    channel_.reset();  // end of file: the template exits
    if (process_ && !process_->wait_for(std::chrono::milliseconds(1000))) {
        process_->terminate(std::chrono::milliseconds(500));
    }
}

bool kernel_template::usable() const {
    {
        std::lock_guard lock(state_mutex_);
        if (refused_ || !process_ || process_->poll_exit()) return false;
    }
    // The Python process itself (inside srt's sandbox under --sandbox, where the kernels it
    // forked can reach it): one that was stopped or signalled would hold or hurt the next fork.
    if (python_pid_ <= 0) return true;
    if (const auto trouble = process::signal_trouble(python_pid_); !trouble.empty()) {
        core::logger("kernel")->warn("the kernel template {} is given up: {}", python_pid_,
                                     trouble);
        std::lock_guard lock(state_mutex_);
        refused_ = true;
        return false;
    }
    return true;
}

bool kernel_template::outdated() const {
    return detail::changed(watched_);
}

std::string kernel_template::sandbox_changed() const {
    if (!sandboxed_) return {};
    if (settings_now_(directory_->path()) == sandbox_settings_) return {};
    return "the sandbox changed since the kernel template started (a repository, a credential "
           "folder or the user site appeared)";
}

const std::filesystem::path& kernel_template::children_directory() const {
    return directory_->path();
}

int kernel_template::pid() const {
    return process_ ? process_->pid() : -1;
}

process::process_attributes kernel_template::child_attributes(
    const process::process_rlimits& limits) const {
    return process::with_limits(attributes_, limits);
}

std::unique_ptr<process::child_process> kernel_template::fork(
    process::spawn_options options, const std::vector<std::string>& arguments,
    const nlohmann::json& connection, clock::time_point deadline) {
    std::lock_guard fork_lock(fork_mutex_);
    if (!usable()) throw template_unavailable("the kernel template is gone", false);
    const auto refuse = [this](const std::string& reason) {
        std::lock_guard lock(state_mutex_);
        refused_ = true;
        return template_unavailable(reason, false);
    };
    if (outdated()) throw refuse("packages changed since the kernel template's imports");
    std::string changed;
    try {
        changed = sandbox_changed();
    } catch (const std::exception& e) {
        changed = std::string("the sandbox's settings cannot be computed: ") + e.what();
    }
    if (!changed.empty()) throw refuse(changed);
    auto [handshake, child_end] = seqpacket_pair();
    const int on = 1;
    ::setsockopt(handshake.get(), SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
    auto lifeline = process::make_pipe();
    auto output = process::make_pipe();
    const auto id = ++next_id_;
    // The command line a cold start would have run, for /proc/<pid>/cmdline.
    std::vector<std::string> command_line = {options.executable.string()};
    command_line.insert(command_line.end(), options.arguments.begin(), options.arguments.end());
    nlohmann::json request = {{"op", "fork"},
                              {"id", id},
                              {"argv", arguments},
                              {"cmdline", command_line},
                              {"cwd", options.working_directory.string()},
                              {"env", options.environment},
                              {"limits", limits_of(options.limits)},
                              {"dumpable", !sandboxed_}};
    if (!connection.is_null()) request["connection"] = connection;
    std::vector<int> descriptors = {child_end.get(), lifeline.read.get(), output.write.get()};
    for (const int procs : options.cgroup_procs) descriptors.push_back(procs);
    send(request.dump(), descriptors);
    child_end.reset();
    lifeline.read.reset();
    output.write.reset();

    std::string answer;
    try {
        answer = receive(channel_.get(), deadline, nullptr);
    } catch (const kernel_start_error& e) {  // silent or gone: of no further use
        std::lock_guard lock(state_mutex_);
        refused_ = true;
        throw template_unavailable(e.what(), false);
    }
    nlohmann::json reply;
    try {
        reply = decode_answer(answer);
    } catch (const template_unavailable&) {
        std::lock_guard lock(state_mutex_);
        refused_ = true;
        throw;
    }
    const auto answered = reply.find("id");
    if (answered == reply.end() || !answered->is_number_unsigned() ||
        answered->get<std::uint64_t>() != id) {
        std::lock_guard lock(state_mutex_);
        refused_ = true;
        throw template_unavailable("the kernel template answered out of turn", false);
    }
    if (reply.contains("unsuitable")) throw template_unsuitable(text_field(reply, "unsuitable"));
    if (reply.contains("error")) {
        {
            std::lock_guard lock(state_mutex_);
            refused_ = true;
        }
        throw template_unavailable(text_field(reply, "error"), false);
    }
    const auto pid_field = reply.find("pid");
    const int template_pid = pid_field != reply.end() && pid_field->is_number_integer()
                                 ? static_cast<int>(pid_field->get<long long>())
                                 : -1;
    int pid = -1;
    try {
        receive(handshake.get(), deadline, &pid);
    } catch (const kernel_start_error& e) {
        // The child ended (or hung) before it ran: it could not join its kernel's control
        // groups, say, which fails the same way for every child of this template.
        reap(template_pid);
        throw refuse(std::string("the forked kernel failed before it started: ") + e.what());
    }
    if (pid <= 0) throw kernel_start_error("the forked kernel did not say who it is");
    process::unique_fd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)));
    // The child waits for our go: if its end of the handshake is still open, it still lives, and
    // the pidfd names it (and not a process that got its PID after it died).
    pollfd item{handshake.get(), POLLIN | POLLRDHUP, 0};
    if (!pidfd || ::poll(&item, 1, 0) != 0) {
        reap(template_pid);
        throw kernel_start_error("the forked kernel ended before it started");
    }
    // Its limits and priorities as the template's children have them: one another process
    // lowered in the template would follow every kernel it forks.
    if (const auto trouble = process::attribute_trouble(pid, child_attributes(options.limits));
        !trouble.empty()) {
        handshake.reset();  // no go: the child ends
        reap(template_pid);
        throw refuse(
            "a kernel forked from the template is not as it should be (another process "
            "changed the template): " +
            trouble);
    }
    if (::send(handshake.get(), "g", 1, MSG_NOSIGNAL) != 1) {
        throw kernel_start_error("the forked kernel ended before it started");
    }
    process::adopted_process adopted;
    adopted.pid = pid;
    adopted.exit_fd = std::move(pidfd);
    adopted.lifeline = std::move(lifeline.write);
    adopted.output = std::move(output.read);
    adopted.on_output_line = std::move(options.on_output_line);
    adopted.io = options.io;
    adopted.on_status_read = [self = shared_from_this(), template_pid] {
        self->reap(template_pid);
    };
    return process::child_process::adopt(std::move(adopted));
}

void kernel_template::reap(int template_pid) {
    try {
        send(nlohmann::json({{"op", "reap"}, {"pid", template_pid}}).dump(), {});
    } catch (const kernel_start_error&) {
        // The template is gone: whoever inherited its children reaps them.
    }
}

}  // namespace ipybox::kernel
