#pragma once
// A tool call from kernel code that waits for the application's decision (the counterpart of
// the reference SDK's ApprovalRequest). The kernel code stays blocked until accept() or
// reject() is called, the approval timeout passes, or the execution ends (which rejects it).
//
// Copies share one decision; the first accept()/reject() wins. Thread-safe.
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace ipybox {

class approval_request {
  public:
    struct state;
    explicit approval_request(std::shared_ptr<state> shared);

    const std::string& server_name() const;
    const std::string& tool_name() const;
    // The tool's generated Python module name (`get_env` for `get-env`); empty for shell commands.
    const std::string& python_name() const;
    const nlohmann::json& tool_args() const;
    // `server.tool(a=1, b="x")` on one line: every argument, long values cut in the middle,
    // untrusted text escaped. For logs.
    std::string describe() const;
    // The question to put to a person, several lines ending with a line break, to which the
    // front end adds its prompt. A fixed layout that no tool name, argument, command or file can
    // imitate: which server, which tool (the generated Python name, and the server's own name
    // escaped beside it when they differ), every argument, every file a save writes, in full.
    std::string question() const;
    // A save into the user library by a sandboxed kernel (server "ipybox", tool "save_gentool"):
    // whatever a front end does with other requests, it asks a person about this one or rejects
    // it (README, "A library across projects"); execute() rejects it.
    bool is_library_save() const;
    // A shell command rather than a tool call (code_executor_options::approve_shell_commands):
    // server_name() "ipybox", tool_name() "shell" or "shell_magic", tool_args() {"cmd": str, ...}.
    bool is_shell_command() const;

    void accept();
    // `reason` is shown to the kernel code after "rejected: ".
    void reject(std::string reason = {});

  private:
    std::shared_ptr<state> state_;
};

using ApprovalRequest = approval_request;

}  // namespace ipybox
