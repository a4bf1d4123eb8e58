#pragma once
// The kernel template (private to the kernel module): a Python process that has imported what a
// kernel imports and forks fresh kernels on request (ipybox_runtime/kernel_template.py has the
// other side and the message format).
//
// It is started like a kernel (the interpreter, environment, working directory and sandbox of
// `launch`), but uncontained: it never runs user code. Each child takes its kernel's limits
// before anything else runs there, and joins its kernel's control groups on a thread of its own
// while ipykernel initializes (a move into a cgroup waits out a grace period of the kernel's
// RCU: 5 to 20 ms on cgroup v1); the kernel serves, and so runs user code, only once it is in. Its
// standard input is a SOCK_SEQPACKET socket whose other end only this object holds: the one
// channel, and its lifeline (end of file there ends it). A forked kernel is a child of the
// template, not of ours: we learn its PID as our PID namespace sees it from the child itself
// (SCM_CREDENTIALS), open a pidfd while it waits for our go, and read its exit status from /proc
// before the template may reap it (process::child_process::adopt).
//
// Under a sandbox (launch.wrap), the template runs inside it, with settings computed for its own
// private directory, and so do the kernels it forks: each keeps its private directory (sockets,
// scratch folders) inside the template's, gets its connection info and key in the fork request
// (no file holds the key), and stays undumpable. The template is undumpable too, so that no
// child can trace it or read its memory. Before each fork the sandbox a cold kernel would get
// now is computed again; when it differs, the template is out of date (sandbox_changed).
//
// Another process of the same user (a kernel in the template's sandbox) can lower the template's
// limits or priorities with prlimit(2), setpriority(2) and the like, and each child would
// inherit them. The template's attributes are recorded when it is ready, before any kernel of
// its sandbox runs; each child must have those, with its kernel's limits, when it reports (else
// the template is given up and the kernel started cold), and again when it is handed over
// (kernel_instance::interfered_with).
//
// The template keeps running while a kernel it forked lives (each holds a reference): under a
// sandbox with its own PID namespace, its end would end them.
//
// Thread-safety: every method may be called from any thread; forks are served one at a time.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ipybox/kernel/kernel_instance.hpp"
#include "ipybox/process/child_process.hpp"
#include "ipybox/process/process_attributes.hpp"
#include "ipybox/process/unique_fd.hpp"
#include "path_stamps.hpp"

namespace ipybox::core {
class private_directory;
}

namespace ipybox::kernel {

// The template cannot give a kernel: it found a package installed since its imports (stale), it
// died, or forking cannot work here. The caller starts the kernel cold, or a new template.
class template_unavailable : public kernel_start_error {
  public:
    template_unavailable(const std::string& message, bool permanent)
        : kernel_start_error(message), permanent_(permanent) {}
    // Forking cannot work with this interpreter or system: do not try again.
    bool permanent() const { return permanent_; }

  private:
    bool permanent_;
};

// The template cannot give this one kernel, and stays of use for others: the kernel's own
// PYTHONPATH entries hold a module the template imported (its children would keep the
// template's). The caller starts that kernel cold.
class template_unsuitable : public kernel_start_error {
  public:
    using kernel_start_error::kernel_start_error;
};

class kernel_template : public std::enable_shared_from_this<kernel_template> {
  public:
    using clock = std::chrono::steady_clock;
    // The largest message on the template's channel, either way.
    static constexpr std::size_t max_message = 1 << 16;

    // Starts the template and waits until it has done its imports. Throws template_unavailable
    // (permanent) when it says forking cannot work, kernel_start_error when it fails to start
    // or, within a tenth of a second, once `abandoned` (if given) turns true: the session that
    // wanted it is stopping.
    static std::shared_ptr<kernel_template> start(
        const kernel_launch& launch, clock::time_point deadline,
        std::shared_ptr<const std::atomic<bool>> abandoned = nullptr);
    ~kernel_template();

    kernel_template(const kernel_template&) = delete;
    kernel_template& operator=(const kernel_template&) = delete;

    // Forks a kernel with the environment, working directory, limits, control groups and output
    // handling of `options` (as for a cold kernel; its command line is not used) and `arguments`
    // (the kernel's own, after the bootstrap). `connection` (null: none): the kernel's
    // connection info, key included, which it then takes from the request and not from a file.
    // Returns once the child runs on its own. Throws template_unavailable (then the template is
    // of no further use: it is outdated, gone, or its child failed before it ran),
    // template_unsuitable (for this kernel only), kernel_start_error.
    std::unique_ptr<process::child_process> fork(process::spawn_options options,
                                                 const std::vector<std::string>& arguments,
                                                 const nlohmann::json& connection,
                                                 clock::time_point deadline);

    // True for a template inside the session's sandbox (launch.wrap): its kernels share that
    // sandbox and keep their private directories inside children_directory(), which it may
    // write; they stay undumpable (siblings cannot trace them or read their memory).
    bool sandboxed() const { return sandboxed_; }
    const std::filesystem::path& children_directory() const;

    // False once the template died, refused a fork or went out of date.
    bool usable() const;
    // True once a folder of the template's sys.path (or the user site) changed since its
    // imports (a package installed or removed, a folder of the path made): a kernel forked from
    // it could see old versions of the modules it imported. Reads a few stat()s.
    bool outdated() const;
    // For a sandboxed template: why a kernel started cold now would get another sandbox than
    // the template's (a repository nested in the workspace, a credential folder or the user
    // site appeared since it started), or "" when it would get the same. Computes the settings
    // again (kernel_launch::sandbox_settings: a walk of the workspace for nested .git entries).
    std::string sandbox_changed() const;
    int pid() const;
    // What a child forked with `limits` has: the template's attributes when it was ready, with
    // those limits.
    process::process_attributes child_attributes(const process::process_rlimits& limits) const;

  private:
    kernel_template() = default;
    void send(const std::string& message, const std::vector<int>& descriptors);
    std::string receive(int fd, clock::time_point deadline, int* sender_pid);
    void reap(int template_pid);

    std::unique_ptr<core::private_directory> directory_;
    std::unique_ptr<process::child_process> process_;
    process::unique_fd channel_;
    std::mutex fork_mutex_;  // one fork at a time: replies come in request order
    std::mutex send_mutex_;  // a reap may be sent while a fork waits for its reply
    mutable std::mutex state_mutex_;
    mutable bool refused_ = false;  // set by usable() too, once it finds the template signalled
    std::shared_ptr<const std::atomic<bool>> abandoned_;  // see start()
    int python_pid_ = -1;  // the template's Python process, as its first message's sender
    process::process_attributes attributes_;  // the Python process's, when it said it was ready
    // Each folder the template's imports depended on, with its inode and modification time
    // (nullopt: missing) when they were done.
    detail::path_stamps watched_;
    std::uint64_t next_id_ = 0;
    bool sandboxed_ = false;
    // The sandbox's settings when the template started, and how to compute them now.
    std::string sandbox_settings_;
    std::function<std::string(const std::filesystem::path&)> settings_now_;
};

}  // namespace ipybox::kernel
