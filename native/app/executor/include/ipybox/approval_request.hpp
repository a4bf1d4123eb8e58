#pragma once
// A request from kernel code that waits for the application's decision (the counterpart of the
// reference SDK's ApprovalRequest): a tool call, a shell command or a save into the user library
// (ipybox/approval/request.hpp, one type per kind). The kernel code stays blocked until accept()
// or reject() is called, the approval timeout passes, or the execution ends (which rejects it);
// no thread of ipybox waits meanwhile.
//
// Copies share one decision; the first accept()/reject() wins. Thread-safe: accept() and
// reject() may be called from any thread, at any time, also after the execution ended (then
// they do nothing).
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "ipybox/approval/request.hpp"

namespace ipybox {

class approval_request {
  public:
    struct state;
    explicit approval_request(std::shared_ptr<state> shared);

    // What is asked, as its own type.
    const approval::request& what() const;
    const approval::tool_call* as_tool_call() const;                // null for the other kinds
    const approval::shell_command* as_shell_command() const;        // null for the other kinds
    const approval::save_action* as_save_action() const;            // null for the other kinds
    const approval::add_dependencies* as_add_dependencies() const;  // null for the others
    bool is_shell_command() const { return as_shell_command() != nullptr; }
    // A save into the user library by a sandboxed kernel: whatever a front end does with other
    // requests, it asks a person about this one or rejects it (README, "A library across
    // projects"); execute() rejects it.
    bool is_library_save() const { return as_save_action() != nullptr; }
    // A save into the user library or dependencies to add (approval::needs_a_person): every
    // front end asks a person about these or refuses them, whatever it does with the others;
    // execute() refuses them.
    bool needs_a_person() const;

    // A tool call's fields; empty (tool_args() null) for the other kinds.
    const std::string& server_name() const;
    const std::string& tool_name() const;  // the MCP name, as the server lists it
    // The tool's generated Python module name (`get_env` for `get-env`).
    const std::string& python_name() const;
    const nlohmann::json& tool_args() const;

    // One line for logs (approval::describe): every argument, long values cut in the middle,
    // untrusted text escaped.
    std::string describe() const;
    // The question to put to a person, several lines ending with a line break, to which the
    // front end adds its prompt. A fixed layout that no tool name, argument, command or file can
    // imitate: which server, which tool (the generated Python name, and the server's own name
    // escaped beside it when they differ), every argument, every file a save writes, in full.
    std::string question() const;

    void accept();
    // `reason` is shown to the kernel code after "rejected: ".
    void reject(std::string reason = {});

  private:
    std::shared_ptr<state> state_;
};

using ApprovalRequest = approval_request;

}  // namespace ipybox
