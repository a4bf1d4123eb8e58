#pragma once
// ipybox's C++ API: run Python in a stateful IPython kernel (the counterpart of the reference
// SDK's CodeExecutor).
//
//   ipybox::CodeExecutor executor({.workspace = "/tmp/ws"});
//   executor.start();
//   auto result = executor.execute("print(6 * 7)");          // result.text == "42"
//   auto stream = executor.stream("for i in range(3): print(i)");
//   while (auto event = stream.next()) { ... }               // chunks, then the result
//
// Thread-safety: every method may be called from any thread, but the blocking ones (all but
// async_execute(), cancel(), kernel_pid(), python() and containment_summary(); and a stream's
// next()) throw std::logic_error on a thread that runs `io_context`: they wait for work that loop
// must do. async_execute() is the form for code running on that loop.
// Executions and resets go through the kernel's one queue (kernel/kernel_session.hpp): they run
// one at a time, in call order, each execution with its own output. cancel() interrupts the
// running execution from another thread, ahead of whatever is queued. The executor owns its
// kernels; the destructor stops them. Streams must not outlive their executor.
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "ipybox/approval_request.hpp"
#include "ipybox/process/containment.hpp"
#include "ipybox/process/environment.hpp"

namespace ipybox::kernel {
class shared_kernel_template;
}

namespace boost::asio {
class io_context;
}
namespace ipybox::mcp::jsonrpc {
class cancellation_token;
}

namespace ipybox {

// Runs every kernel under srt (Anthropic's sandbox-runtime: bubblewrap on Linux, Seatbelt on
// macOS). Without network rules the kernel has no network at all; it can write only to the
// workspace (and ipybox's private directory); it cannot read the workspace .env. Tool calls keep
// working: the tool server and the MCP servers run outside the sandbox, on the host's side.
// Fails closed: if srt is missing or cannot start, no kernel runs (start_failed).
struct kernel_sandbox {
    nlohmann::json settings;                   // srt settings (network, filesystem); null: none
    std::optional<std::filesystem::path> srt;  // default: $IPYBOX_SRT, then `srt` on PATH,
    std::vector<std::filesystem::path> srt_fallbacks;  // then the first of these that exists
    std::vector<std::filesystem::path> unreadable;     // more paths the kernel must not read
    // Files ipybox reads as configuration (the sandbox config, the approval policy): the kernel
    // must not be able to change what the next session trusts.
    std::vector<std::filesystem::path> unwritable;
    // Variables whose values may be filled into servers even though they are easy to guess
    // (workspace/secret_strength.hpp): by default such a value is refused when the server
    // starts, since the kernel could find it by trying candidates through an echoing tool.
    std::set<std::string> guessable_secrets_allowed;
};

// What adding a saved action's dependencies did (code_executor_options::add_dependencies).
struct dependencies_added {
    bool added = false;  // everything asked for is there now
    std::string report;  // one line per server and package: what was done, or why not
};

struct code_executor_options {
    std::filesystem::path workspace;         // kernel cwd and import root; default: current dir
    std::filesystem::path images_directory;  // default: <workspace>/images
    // After each execution that changed the kernel's current directory, change it back to the
    // workspace and say so in the output ("[ipybox] cwd reset to <workspace>"), as the
    // reference SDK does when given a working_dir. Off: a change of directory persists.
    bool restore_working_directory = false;
    std::map<std::string, std::string> kernel_env;  // added to the kernel's environment
    // The host's environment: the kernel inherits only its allowlisted variables (PATH, HOME,
    // LANG, ...); interpreter discovery searches its PATH.
    process::environment_map host_environment;
    std::optional<std::filesystem::path> python;           // --python
    std::optional<std::filesystem::path> python_override;  // IPYBOX_PYTHON
    std::filesystem::path runtime_directory;               // folder holding ipybox_runtime/
    std::string transport = "ipc";                         // kernel channels: "ipc" or "tcp"
    std::chrono::milliseconds start_timeout{30000};
    std::size_t max_output_bytes = 8 * 1024 * 1024;
    bool keep_spare_kernel = true;          // makes reset() fast at the cost of one idle kernel
    std::optional<kernel_sandbox> sandbox;  // run the kernel sandboxed (see kernel_sandbox)
    // Spare kernels forked from a kernel template that has done their imports (tens of ms instead
    // of Python's start); off, or IPYBOX_FORK_KERNELS=0 in host_environment: started cold.
    bool fork_kernels = true;
    // With fork_kernels: a template shared with other executors in this process
    // (kernel/shared_kernel_template.hpp), used when this executor's kernels can share it (not
    // sandboxed, the same interpreter and environment); null: a template of this executor's own.
    std::shared_ptr<kernel::shared_kernel_template> shared_template;
    // Variables of kernel_env that differ between executors sharing a template (a file of this
    // workspace's, say); they stay out of the template, as the tool server's socket and token do.
    std::vector<std::string> kernel_own_variables;
    // Limits of each kernel's process tree (memory, processes and threads, largest file, open
    // files, CPU seconds; unset fields: no limit). Enforced with a cgroup where ipybox can make
    // one, else with rlimits (process/containment.hpp). A cell that crosses one ends with an
    // error naming it; a kernel stopped by its memory limit is replaced by a fresh one. Whatever
    // the limits, everything a kernel starts ends with it.
    process::resource_limits limits = process::default_resource_limits();
    // Saved code actions beyond the project's <workspace>/gentools, in precedence order; the
    // first is the user's library (new_gentool(scope="user") writes there). All import in the
    // kernel as gentools.<category>.<name>, an earlier root winning. A sandboxed kernel may
    // read them but not write them (unless the sandbox settings allow it); its
    // new_gentool(scope="user") asks ipybox, which writes the action into the first root once a
    // save_action request (approval_request::as_save_action()) is approved.
    std::vector<std::filesystem::path> library_roots;

    // Tool calls from kernel code: stream() yields an approval_request for each one unless
    // approve_tool_calls is false; execute() approves them all, but rejects a save into the user
    // library (approval_request::is_library_save(), asked through stream() in every mode). Without
    // a decision within approval_timeout (if set) the call fails in the kernel with
    // ApprovalTimeoutError.
    bool approve_tool_calls = true;
    // Shell commands from kernel code (!cmd, !!cmd, x = !cmd, %%bash, %%sh, %%script ...) wait
    // for an approval_request holding an approval::shell_command (as_shell_command(): the form,
    // the command and, for a cell, its interpreter), independently of approve_tool_calls. The
    // command in the request is exactly the one that runs. A review aid, not a boundary: kernel
    // code can still start processes through subprocess.
    bool approve_shell_commands = false;
    // With approve_shell_commands: kernel code may start processes only through shell commands,
    // which are approved (subprocess, os.system, os.exec*, os.spawn*, os.posix_spawn* and
    // pty.spawn raise RuntimeError "Direct ... calls are not allowed. Use ! syntax."). Also a
    // review aid, not a boundary (ctypes, os.fork and _posixsubprocess pass). Without
    // approve_shell_commands the executor refuses to start (std::invalid_argument).
    bool require_shell_escape = false;
    std::optional<std::chrono::milliseconds> approval_timeout;
    // Kernel code may ask for what a saved code action needs (MCP servers to register, packages
    // to install: ipybox_runtime.requirements.add_dependencies). Such a request is always a
    // question for a person (approval_request::as_add_dependencies(), needs_a_person()); once
    // approved, this does the work, on a thread of the executor's own (it may block). Unset:
    // kernel code is told to call register_mcp_server and install_package instead.
    std::function<dependencies_added(const approval::add_dependencies&)> add_dependencies;
    // Asked before a person is: why such a request cannot be granted in this project ("" when
    // it can). Adding dependencies never replaces what the user set up: a server already
    // registered under one of the names with other parameters refuses the request, and nobody
    // is asked. Unset: nothing is refused here.
    std::function<std::string(const approval::add_dependencies&)> dependencies_refusal;
    // MCP servers the kernel may call from the start, by name (a Python identifier other than
    // "ipybox", by which approval policies name shell commands and saves): {"command", "args",
    // "env"} or
    // {"url", "type", "headers"}. ${VAR} placeholders are filled from host_environment, then the
    // workspace .env, when a server starts. More can be added with register_mcp_server().
    std::map<std::string, nlohmann::json> mcp_servers;
    std::chrono::milliseconds mcp_connect_timeout{30000};
    // How long one MCP tool call may take (progress notifications restart the clock).
    std::chrono::milliseconds tool_call_timeout{300000};
    // The Asio loop the executor's I/O runs on (connections to MCP servers, the tool server),
    // for an application that has one. It must be running from start() until the executor is
    // destroyed. Null: the executor runs a loop of its own, on one thread.
    boost::asio::io_context* io_context = nullptr;
};

// A piece of output while the code runs.
struct code_execution_chunk {
    std::string stream;  // "stdout", "stderr" or "display"
    std::string text;
    std::optional<std::filesystem::path> image;
};

struct code_execution_result {
    std::string text;
    std::vector<std::filesystem::path> images;
    bool cancelled = false;
    std::vector<std::string> notices;
    std::size_t omitted_output_bytes = 0;
    std::optional<long long> kernel_micros;
};

// Why an execution failed, as a value: the code raised, it ran past its timeout, the kernel
// died, or no kernel could start for it. (A cancelled execution did not fail: its result says
// cancelled.) A stream's next_step() ends with it; next(), execute(), start() and reset() throw it
// as a code_execution_error.
struct code_execution_failure {
    enum class kind { exception, timeout, kernel_died, start_failed };
    kind error_kind = kind::exception;
    // The text to show: for an exception "<ename>: <evalue>\n<traceback>"; for a timeout or a
    // dead kernel, what happened to the kernel's state; for a failed start, why and the fix.
    std::string message;
    std::string output;      // what the code printed before the failure
    std::string ename;       // exception: the Python type; otherwise TimeoutError, KernelDied,
                             // KernelStartError, InterpreterNotFound or SandboxUnavailable
    std::string evalue;      // exception: its message
    bool state_kept = true;  // false when the kernel's state (variables, imports) was lost
};

// A failure thrown by the blocking calls (what() is the failure's message). This is the C++ API's
// public error type: embedders catch it, as the README shows; inside ipybox failures travel as
// code_execution_failure values and become this exception only at the API's edge.
class code_execution_error : public std::runtime_error {
  public:
    using kind = code_execution_failure::kind;
    explicit code_execution_error(code_execution_failure failure)
        : std::runtime_error(failure.message), failure_(std::move(failure)) {}
    code_execution_error(kind k, const std::string& message, std::string output,
                         std::string ename = {}, std::string evalue = {}, bool state_kept = true)
        : code_execution_error(code_execution_failure{
              k, message, std::move(output), std::move(ename), std::move(evalue), state_kept}) {}
    const code_execution_failure& failure() const { return failure_; }
    kind error_kind() const { return failure_.error_kind; }
    const std::string& output() const { return failure_.output; }  // printed before the failure
    const std::string& ename() const { return failure_.ename; }
    const std::string& evalue() const { return failure_.evalue; }
    bool state_kept() const { return failure_.state_kept; }

  private:
    code_execution_failure failure_;
};

using code_execution_event =
    std::variant<code_execution_chunk, approval_request, code_execution_result>;
// The same events with the end as a value: the last step is the result (completed or
// cancelled) or the failure.
using code_execution_step = std::variant<code_execution_chunk, approval_request,
                                         code_execution_result, code_execution_failure>;

// The events of one execution: chunks and approval requests as they arrive, then the result.
// next() returns nullopt after the result; it throws code_execution_error when the execution
// fails, also when it never ran (no kernel could start, the kernel was lost while it waited).
// next_step() is the same with the failure as its last step instead of an exception, for callers
// that turn how an execution ended into an answer of their own (an MCP result, an exit code).
// Destroying an unfinished stream rejects pending approvals and cancels the execution
// without waiting for it; the next execution starts once it has stopped.
// When an execution ends by timeout, cancellation or a dead kernel, MCP tool calls still in
// flight are cancelled too (the servers get notifications/cancelled).
class code_execution_stream {
  public:
    ~code_execution_stream();
    code_execution_stream(code_execution_stream&&) noexcept;
    code_execution_stream& operator=(code_execution_stream&&) = delete;
    std::optional<code_execution_event> next();
    std::optional<code_execution_step> next_step();

  private:
    friend class code_executor;
    struct state;  // code_execution_stream_state.hpp
    explicit code_execution_stream(std::unique_ptr<state> held);
    void finish_approvals();  // detaches the approvals (once)

    std::unique_ptr<state> state_;  // null once moved from
};

// One tool of a registered MCP server under both names approval rules accept.
struct mcp_tool_name {
    std::string server_name;
    std::string tool_name;    // as the server lists it (`get-env`)
    std::string python_name;  // the generated module under mcptools/<server>/ (`get_env`)
};

class code_executor {
  public:
    explicit code_executor(code_executor_options options = {});
    ~code_executor();

    code_executor(const code_executor&) = delete;
    code_executor& operator=(const code_executor&) = delete;

    // Finds the interpreter and starts the kernel. Throws code_execution_error(start_failed)
    // naming the interpreter tried (or the missing sandbox runtime) and the fix. execute() and
    // stream() start it when needed (stream() reporting a failed start as its failure).
    void start();
    void stop();

    // Runs `code` to the end. Throws code_execution_error when it fails (next_step()'s failure).
    // A thin layer over async_execute() that accepts tool calls and shell commands and refuses
    // what needs a person.
    code_execution_result execute(const std::string& code,
                                  std::optional<std::chrono::milliseconds> timeout = std::nullopt);
    // Queues `code` like stream() and returns at once. `on_step` gets the steps of next_step(),
    // in order and one at a time, on the executor's io_context (options.io_context when given):
    // chunks and approval requests as they come (answer them with accept()/reject(), there or
    // later, from any thread), then the result or the failure, after which it is not called
    // again. Nothing here waits, so it may be called from a handler on that io_context, also
    // from `on_step` itself. The first call builds the kernel session on a worker of the
    // executor's (its interpreter probe blocks); a failure to start is the last step too. An
    // exception thrown by `on_step` is logged and dropped (the loop goes on).
    void async_execute(const std::string& code, std::optional<std::chrono::milliseconds> timeout,
                       std::function<void(code_execution_step)> on_step);
    // Queues `code`, waits for its turn (the executions and resets called before it go first)
    // and returns its events once its code is in the kernel. Code that never ran (no kernel
    // could start, the kernel was lost while it waited) gets a stream whose only event is the
    // failure (start_failed, kernel_died).
    code_execution_stream stream(const std::string& code,
                                 std::optional<std::chrono::milliseconds> timeout = std::nullopt);

    // A fresh kernel and closed MCP sessions (they restart on next use); the workspace,
    // installed packages and registered servers stay. Queued like an execution: waits for those
    // called before it; call cancel() first to stop a running one. Throws
    // code_execution_error(start_failed) when no fresh kernel could start.
    void reset();
    void cancel();  // interrupts the running execution, which ends as cancelled

    // Records an MCP server the kernel may call (replacing one of the same name) and, when
    // `generate_sources`, connects to it and writes <workspace>/mcptools/<name>/. Returns the
    // generated module names (empty without generation). Throws std::invalid_argument for a
    // bad name (not an identifier, a keyword, or the reserved "ipybox") or parameters, and
    // std::runtime_error when the server cannot be reached. `loose_typing`, when given, receives
    // "<module>: <note>" for each part of a tool's schema that its module types more loosely
    // (as Any, sending the caller's value unchanged), as each module's docstring says too.
    // `cancellation`, when given, abandons the connection and the listing once it fires (the
    // registration then fails and the previous one, if any, stays).
    std::vector<std::string> register_mcp_server(
        const std::string& name, const nlohmann::json& params, bool generate_sources = true,
        std::vector<std::string>* loose_typing = nullptr,
        const mcp::jsonrpc::cancellation_token* cancellation = nullptr);

    // The tools of every registered MCP server, connecting to those not yet connected (lists are
    // cached until the server is registered again). A server that cannot be listed adds
    // "<name>: <reason>" to `unreachable` instead.
    std::vector<mcp_tool_name> mcp_tool_names(std::vector<std::string>& unreachable);

    const std::filesystem::path& python() const;  // the interpreter in use (after start)
    // Which containment is in force and, when not the best, why ("rlimits only ...; cgroup v2:
    // ...").
    std::string containment_summary() const;
    int kernel_pid() const;

  private:
    struct impl;  // code_executor_impl.hpp
    std::unique_ptr<impl> impl_;
};

// The names of the reference SDK.
using CodeExecutor = code_executor;
using CodeExecutorOptions = code_executor_options;
using CodeExecutionResult = code_execution_result;
using CodeExecutionChunk = code_execution_chunk;
using CodeExecutionError = code_execution_error;
using CodeExecutionFailure = code_execution_failure;
using CodeExecutionStream = code_execution_stream;

}  // namespace ipybox
