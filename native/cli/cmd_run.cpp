#include "cmd_run.hpp"

#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <future>
#include <iostream>
#include <sstream>

#include "ipybox/core/log.hpp"
#include "ipybox/executor/mcp_runtime.hpp"
#include "ipybox/workspace/bounded_read.hpp"

namespace ipybox::cli {
namespace {

// The code of `-f FILE`: a regular file (a link of the user's is followed), up to a size.
std::optional<std::string> read_file(const std::string& path) {
    try {
        return workspace::read_regular_file(path, workspace::max_code_file_bytes,
                                            workspace::link_rule::follow);
    } catch (const std::exception& e) {
        std::cerr << "ipybox: " << screened(e.what()) << "\n";
        return std::nullopt;
    }
}

// Ctrl-C cancels the running code (the kernel lives in its own session and never sees the
// terminal's SIGINT); a second Ctrl-C exits. SIGINT is taken on the executor's loop (a
// signal_set), where cancel() may be called: it waits for nothing.
class interrupt_forwarder {
  public:
    interrupt_forwarder(boost::asio::io_context& loop, code_executor& executor)
        : state_(std::make_shared<state>(loop, executor)) {
        state::arm(state_);
    }
    // The signal_set is the loop's: it is cancelled there, and no handler touches the executor
    // once this returns (it runs on another thread than the loop).
    ~interrupt_forwarder() {
        std::promise<void> done;
        boost::asio::post(state_->signals.get_executor(), [this, &done] {
            state_->executor = nullptr;
            boost::system::error_code ignored;
            state_->signals.cancel(ignored);
            done.set_value();
        });
        done.get_future().wait();
    }
    interrupt_forwarder(const interrupt_forwarder&) = delete;
    interrupt_forwarder& operator=(const interrupt_forwarder&) = delete;

  private:
    struct state {
        state(boost::asio::io_context& loop, code_executor& e)
            : signals(loop, SIGINT), executor(&e) {}
        boost::asio::signal_set signals;
        code_executor* executor;  // null once the forwarder is gone; on the loop
        int count = 0;

        static void arm(const std::shared_ptr<state>& self) {
            self->signals.async_wait([self](const boost::system::error_code& error, int) {
                if (error || self->executor == nullptr) return;
                if (++self->count > 1) std::_Exit(130);
                std::cerr << "\nipybox: interrupting (press Ctrl-C again to quit)" << std::endl;
                self->executor->cancel();
                arm(self);
            });
        }
    };
    std::shared_ptr<state> state_;
};

// Asks on stdin: the request's question (approval_request::question(): a fixed layout that no
// tool name, argument or file can imitate), then the prompt. For a tool call or a shell command
// an empty answer means yes; for a save into the user library or dependencies to add it means
// no. End of input means no.
bool ask_for_approval(const approval_request& request) {
    const bool save = request.needs_a_person();
    const char* prompt = request.is_library_save() ? "Save it? [y/N] "
                         : save                    ? "Add them? [y/N] "
                                                   : "Approve? [Y/n] ";
    std::cerr << request.question() << prompt << std::flush;
    std::string answer;
    if (!std::getline(std::cin, answer)) {
        std::cerr << "\n";
        return false;
    }
    if (answer.empty()) return !save;
    return answer == "y" || answer == "Y" || answer == "yes";
}

// What `--approve` decides for one request. A save into the user library (a sandboxed kernel's
// new_gentool(scope="user")) or dependencies to add are no tool calls: whatever --approve says,
// they are asked at a terminal on stdin, and refused when there is none or with --approve none.
void decide(approval_request& request, const std::string& approve, bool terminal) {
    if (request.needs_a_person()) {
        const char* what =
            request.is_library_save() ? "saves into the user library" : "dependencies to add";
        if (approve == "none") {
            request.reject(std::string("ipybox run --approve none refuses ") + what);
        } else if (!terminal) {
            request.reject(std::string(what) + " are asked at a terminal, and stdin is not one");
        } else if (!ask_for_approval(request)) {
            request.reject("the user declined");
        } else {
            request.accept();
        }
        return;
    }
    const bool approved = approve == "all" || (approve == "ask" && ask_for_approval(request));
    approved ? request.accept() : request.reject();
}

void print_chunk(const code_execution_chunk& chunk) {
    if (chunk.image) {
        std::cout << "[image saved: " << chunk.image->string() << "]\n" << std::flush;
    } else if (chunk.stream == "stderr") {
        std::cerr << chunk.text << std::flush;
    } else {
        std::cout << chunk.text << std::flush;
    }
}

}  // namespace

void setup_run(CLI::App& app, run_options& options) {
    auto* run = app.add_subcommand(
        "run", "Run Python files and -c snippets, in order, in one stateful IPython kernel");
    run->add_option("files", options.files, "Python files to run");
    // One value per -c, so that `-c CODE file.py` leaves file.py to the positional files.
    run->add_option("-c,--code", options.snippets, "Python code to run (repeatable)")
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->allow_extra_args(false);
    run->add_option("--timeout", options.timeout_seconds,
                    "Seconds each file or snippet may run before the kernel is interrupted")
        ->check(CLI::PositiveNumber);
    add_kernel_flags(*run, options.kernel);
    add_server_flags(*run, options.servers);
    run->add_flag("--generate", options.generate,
                  "Write mcptools/<server>/ in the workspace for every --server first");
    run->add_option("--approve", options.approve,
                    "Tool calls from the code: ask (prompt y/n for each), all, or none "
                    "(default: ask on a terminal, all otherwise). A save into the user library "
                    "(--sandbox) is asked at a terminal whatever this says, else refused")
        ->check(CLI::IsMember({"ask", "all", "none"}));
    run->add_flag("--approve-shell-commands", options.approve_shell_commands,
                  "Also ask before shell commands run (!cmd, !!cmd, %%bash, %%sh, %%script); "
                  "a review aid, not a sandbox");
    run->callback([run, &options] {
        // Recover the command-line order of files and snippets.
        std::size_t file_index = 0;
        std::size_t code_index = 0;
        for (const auto* option : run->parse_order()) {
            if (option->get_name() == "files" && file_index < options.files.size()) {
                options.sources_in_order.push_back("f:" + options.files[file_index++]);
            } else if (option->check_name("-c") && code_index < options.snippets.size()) {
                options.sources_in_order.push_back("c:" + options.snippets[code_index++]);
            }
        }
        if (options.sources_in_order.empty()) {
            throw CLI::ValidationError("run", "give at least one FILE or -c CODE");
        }
    });
}

int run_run(const run_options& options, const process::environment_map& environment) {
    auto executor_config = executor_options(options.kernel, environment);
    executor_config.keep_spare_kernel = false;  // nothing here resets the kernel
    executor_config.mcp_servers = collect_servers(options.servers);
    executor_config.approve_shell_commands = options.approve_shell_commands;
    const bool terminal = ::isatty(STDIN_FILENO) == 1;
    const std::string approve =
        !options.approve.empty() ? options.approve : (terminal ? "ask" : "all");
    if (options.generate) {
        // As the kernel's start does without --generate: the servers start in the workspace.
        std::error_code error;
        std::filesystem::create_directories(executor_config.workspace, error);
        if (error) {
            std::cerr << "ipybox: cannot create the workspace " << executor_config.workspace << ": "
                      << error.message() << "\n";
            return exit_start_failed;
        }
    }
    // The executor's loop, ours so that SIGINT joins it (declared first: it outlives both).
    app::mcp_runtime runtime;
    executor_config.io_context = &runtime.io();
    code_executor executor(std::move(executor_config));
    interrupt_forwarder forward_interrupts(runtime.io(), executor);
    if (options.generate) {
        for (const auto& [name, params] : collect_servers(options.servers)) {
            try {
                const auto modules = executor.register_mcp_server(name, params);
                std::cerr << "ipybox: generated mcptools/" << name << "/ (" << modules.size()
                          << " tools)\n";
            } catch (const std::exception& e) {
                std::cerr << "ipybox: cannot generate the API of MCP server '" << name
                          << "': " << screened(e.what()) << "\n";
                return exit_start_failed;
            }
        }
    }
    std::optional<std::chrono::milliseconds> timeout;
    if (options.timeout_seconds) {
        timeout =
            std::chrono::milliseconds(static_cast<long long>(*options.timeout_seconds * 1000));
    }
    for (const auto& source : options.sources_in_order) {
        std::string code = source.substr(2);
        if (source[0] == 'f') {
            auto content = read_file(code);
            if (!content) {
                std::cerr << "ipybox: cannot read " << code << "\n";
                return exit_usage;
            }
            code = std::move(*content);
        }
        auto stream = executor.stream(code, timeout);
        while (auto step = stream.next_step()) {
            if (const auto* chunk = std::get_if<code_execution_chunk>(&*step)) {
                print_chunk(*chunk);
            } else if (auto* request = std::get_if<approval_request>(&*step)) {
                decide(*request, approve, terminal);
            } else if (const auto* result = std::get_if<code_execution_result>(&*step)) {
                for (const auto& notice : result->notices) {
                    std::cerr << "ipybox: " << notice << "\n";
                }
                if (result->omitted_output_bytes > 0) {
                    std::cerr << "ipybox: " << result->omitted_output_bytes
                              << " bytes of output were left out of the result\n";
                }
                if (result->cancelled) std::cerr << "ipybox: cancelled\n";
                if (const auto status = exit_code_for(*result); status != exit_ok) return status;
            } else {
                const auto& failure = std::get<code_execution_failure>(*step);
                std::cout << std::flush;
                std::cerr << screened(failure.message) << "\n";
                return exit_code_for(failure);
            }
        }
    }
    return exit_ok;
}

}  // namespace ipybox::cli
