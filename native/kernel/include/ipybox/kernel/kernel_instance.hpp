#pragma once
// One running IPython kernel: its process, its connection, and the routing of its messages to
// the executions that asked for them (by parent msg_id).
//
// Lifecycle: start() spawns and connects without waiting; wait_ready() blocks until the kernel
// answered kernel_info AND an IOPub message of that request arrived (without the second, the
// first execution's output is lost about half the time: ZeroMQ's slow-joiner); shutdown() asks
// politely, then signals, then ends every process the kernel started. A kernel process that
// exits at any time fails every pending execution at once with a kernel_died event (its pidfd is
// watched by the connection's I/O thread); one that stops answering its heartbeat is killed
// first (see kernel_launch::heartbeat_interval).
//
// Thread-safety: every method may be called from any thread.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ipybox/kernel/kernel_events.hpp"
#include "ipybox/process/containment.hpp"

namespace boost::asio {
class io_context;
}
#include "ipybox/process/environment.hpp"
#include "ipybox/process/process_attributes.hpp"

namespace ipybox::kernel {

struct kernel_wrapping {
    std::vector<std::string> command_prefix;
    process::environment_map environment;  // added to the kernel's
    // The environment of the wrapper itself (the sandbox runtime, a process on the host, outside
    // the sandbox). When set, the kernel's environment never reaches the wrapper: it is written
    // to a file in the kernel's private directory (mode 0600) that a shell inside the wrapper
    // loads just before it runs the kernel, so that a variable meant for the kernel
    // (NODE_OPTIONS, LD_PRELOAD, ...) cannot configure a host process. The kernel's variable
    // names must then be portable shell names ([A-Za-z_][A-Za-z0-9_]*); start() refuses others.
    std::optional<process::environment_map> wrapper_environment;
};

struct kernel_launch {
    std::filesystem::path python;             // an interpreter with ipykernel
    std::filesystem::path runtime_directory;  // the folder that contains ipybox_runtime/
    std::filesystem::path working_directory;  // the kernel's cwd (the workspace)
    // The kernel's complete environment; ipybox adds PYTHONPATH (runtime first) and
    // IPYBOX_WORKSPACE.
    process::environment_map environment;
    std::string transport = "ipc";  // "ipc" or "tcp"
    // Where the kernel's private directory (connection file, ipc:// sockets) is created. Keep it
    // short: socket paths have 107 bytes.
    std::filesystem::path runtime_base = "/tmp";
    // A sandbox: called with the new kernel's private directory before the kernel is spawned;
    // returns what to put before the kernel's command line and variables to add to its
    // environment. May throw (the start then fails). Unset: the kernel runs directly.
    std::function<kernel_wrapping(const std::filesystem::path& kernel_directory)> wrap;
    // With `wrap`, for kernels forked from a template inside the sandbox (template_holder): the
    // settings `wrap` would give a kernel whose private directory is `kernel_directory`, computed
    // now without making or writing anything (equal texts: the same sandbox); and the scratch
    // folders (TMPDIR, ...) of a kernel that lives in `directory` inside another's sandbox,
    // made there, as variables for its environment. Either unset: sandboxed kernels start cold.
    std::function<std::string(const std::filesystem::path& kernel_directory)> sandbox_settings;
    std::function<process::environment_map(const std::filesystem::path& directory)> sandbox_scratch;
    // Variables of `environment` that belong to this kernel alone (its tool server's socket and
    // token, say): a template shared with other sessions' kernels starts without them
    // (shared_kernel_template.hpp), and they may differ between the kernels that share it.
    std::vector<std::string> own_variables;
    // Containment: each kernel gets its own group with these limits (containment.hpp); the whole
    // tree ends with the kernel. Unset: the kernel runs uncontained (its process group only).
    std::shared_ptr<process::containment_host> containment;
    process::resource_limits limits;
    // A ready kernel that misses this many heartbeats in a row is hung (stopped, frozen): it is
    // killed and reported dead ("stopped answering ..."), as after a timeout that an interrupt
    // could not end. A zero interval turns the check off.
    std::chrono::milliseconds heartbeat_interval{5000};
    int heartbeat_misses = 4;
    // The output cap of the executions' consumers (event_queue keep_bytes): stream text waiting
    // for a slow consumer is bounded by it plus 1 MiB. 0: unbounded.
    std::size_t output_cap = 0;
    // The loop that watches the kernel's sockets, exit and output (it must outlive the kernel);
    // null: each kernel gets threads of its own for them.
    boost::asio::io_context* io = nullptr;
};

class kernel_start_error : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// What happened to an execute_request, for its owner's state machine: the reply arrived, the
// idle status arrived, the kernel died.
enum class execution_progress { replied, idle, died };

// One execute_request in flight: its events arrive on `events`. When `on_progress` is set, the
// reply, the idle status and the death go to it instead (called on the connection's loop, or on
// the thread that shut the kernel down): for an owner that decides when the execution is over
// (kernel_session's strand) and queues them itself. It must return at once and must not call
// back into the kernel_instance.
struct pending_execution {
    std::string msg_id;
    event_queue events;
    std::function<void(kernel_event, execution_progress)> on_progress;
    // When its last output arrived (steady clock), for an owner that waits for the idle status
    // after the reply: output still arriving is not output lost.
    std::atomic<std::chrono::steady_clock::time_point> last_output{};

    void push_progress(kernel_event event, execution_progress what) {
        if (on_progress) {
            on_progress(std::move(event), what);
        } else {
            events.push(std::move(event));
        }
    }
};

class kernel_template;  // private to the kernel module (src/kernel_template.hpp)

class kernel_instance {
  public:
    // Spawns the kernel in a fresh private directory under launch.runtime_base. Throws
    // kernel_start_error if the process cannot be started at all (or launch.wrap fails).
    static std::unique_ptr<kernel_instance> start(const kernel_launch& launch);
    // The same kernel forked by `from` (started with the same launch): launch.wrap is not called
    // again (the template runs inside the sandbox already). Throws template_unavailable when the
    // template cannot fork (then start it cold, or from a new template), kernel_start_error.
    static std::unique_ptr<kernel_instance> start(const kernel_launch& launch,
                                                  const std::shared_ptr<kernel_template>& from);
    ~kernel_instance();  // shuts the kernel down (see shutdown) if still running

    // Blocks until ready. Throws kernel_start_error if the kernel exits first, the deadline
    // passes (the message names the interpreter and quotes the end of its output) or
    // abandon_start() is called.
    void wait_ready(std::chrono::steady_clock::time_point deadline);
    // Makes a wait_ready() in progress, or the next, throw at once: the session that wanted the
    // kernel is stopping. The kernel itself keeps running until it is shut down. Any thread.
    void abandon_start();
    bool ready() const;

    // Sends an execute_request whose events go to `into` (its msg_id is set here). Returns at
    // once; a dead kernel queues kernel_died there instead.
    void execute(const std::string& code, const std::shared_ptr<pending_execution>& into);

    // Sends interrupt_request on the control channel (ipykernel signals its process group).
    void interrupt();

    bool alive() const;
    // True for a kernel forked from a kernel template (false: started cold).
    bool forked() const { return template_ != nullptr; }
    // True for a kernel forked from a template whose imports are out of date (a package was
    // installed since, where the template imports from or in a folder of this kernel's own
    // PYTHONPATH): a kernel started now would see other modules; or, inside the template's
    // sandbox, whose sandbox is (a kernel started now would get another: a repository nested
    // in the workspace since, say). A few stat()s, and under a sandbox a walk of the workspace
    // for nested repositories (as each sandboxed start does).
    bool outdated() const;
    // Why the process exited ("killed by signal 9 (SIGKILL)"; "exceeded its memory limit of
    // 2 GiB and was stopped" when a limit ended it), or "" while it runs.
    std::string exit_reason() const;
    // True once the kernel's own memory limit ended it.
    bool stopped_by_limit() const;
    // A limit the kernel's tree ran into since the last call (e.g. a refused fork), or nullopt.
    std::optional<process::limit_breach> take_limit_breach();
    // Ends every process the kernel started, also those that left its process group.
    void end_descendants();
    int pid() const;
    // The kernel's language_info and implementation from its kernel_info_reply.
    nlohmann::json info() const;

    // shutdown_request on control, up to `grace` to exit, then SIGTERM/SIGKILL to its group.
    void shutdown(std::chrono::milliseconds grace = std::chrono::milliseconds(1000));
    // SIGKILL to its group and to every process it started, and returns once they are gone (up
    // to a few seconds): after this, nothing of the kernel can signal another process. For a
    // kernel whose state is given up (reset), before another kernel it could reach is handed
    // over. shutdown() after it only cleans up.
    void end_now();
    // Why this kernel must not be handed over though alive() says it runs, or "": another
    // process, e.g. a sibling in the template's sandbox, stopped it or left a signal pending for
    // it (process::signal_trouble), or, for a forked kernel, changed its limits or priorities
    // (process::attribute_trouble).
    std::string interfered_with() const;

  private:
    struct impl;
    explicit kernel_instance(std::unique_ptr<impl> state);
    std::unique_ptr<impl> impl_;
    std::shared_ptr<kernel_template> template_;  // the one it was forked from, if any
    // A forked kernel's limits and priorities, as they were when it reported to the template.
    std::optional<process::process_attributes> attributes_;
    int pid_ = -1;
};

}  // namespace ipybox::kernel
