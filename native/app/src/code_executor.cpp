#include "ipybox/code_executor.hpp"

#include "ipybox/core/log.hpp"
#include "ipybox/kernel/interpreter.hpp"
#include "ipybox/kernel/kernel_session.hpp"

namespace ipybox {
namespace {

// Runs `body`, translating the kernel module's typed failures into the API's one error type.
template <typename Body>
auto translate_errors(Body&& body) -> decltype(body()) {
    using kind = code_execution_error::kind;
    try {
        return body();
    } catch (const kernel::execution_error& e) {
        throw code_execution_error(kind::exception, e.what(), e.output(), e.ename(), e.evalue());
    } catch (const kernel::execution_timeout& e) {
        throw code_execution_error(kind::timeout, e.what(), e.output(), "TimeoutError", "",
                                   e.state_kept());
    } catch (const kernel::kernel_died_error& e) {
        throw code_execution_error(kind::kernel_died, e.what(), e.output(), "KernelDied", "",
                                   false);
    } catch (const kernel::kernel_start_error& e) {
        throw code_execution_error(kind::start_failed, e.what(), "", "KernelStartError", "",
                                   false);
    } catch (const kernel::interpreter_not_found& e) {
        throw code_execution_error(kind::start_failed, e.what(), "", "InterpreterNotFound", "",
                                   false);
    }
}

code_execution_result to_api(kernel::execution_result&& result) {
    return code_execution_result{std::move(result.text),        std::move(result.images),
                                 result.cancelled,              std::move(result.notices),
                                 result.omitted_output_bytes,   result.kernel_micros};
}

}  // namespace

code_execution_stream::code_execution_stream(std::unique_ptr<kernel::execution_stream> stream)
    : stream_(std::move(stream)) {}
code_execution_stream::~code_execution_stream() = default;
code_execution_stream::code_execution_stream(code_execution_stream&&) noexcept = default;

std::optional<code_execution_event> code_execution_stream::next() {
    if (done_) return std::nullopt;
    while (!stream_->finished()) {
        if (auto chunk = stream_->next()) {
            return code_execution_chunk{std::move(chunk->stream), std::move(chunk->text),
                                        std::move(chunk->image)};
        }
    }
    done_ = true;
    return translate_errors([&] { return code_execution_event(to_api(stream_->finish())); });
}

code_executor::code_executor(code_executor_options options) : options_(std::move(options)) {
    if (options_.workspace.empty()) options_.workspace = std::filesystem::current_path();
    options_.workspace = std::filesystem::weakly_canonical(std::filesystem::absolute(options_.workspace));
}

code_executor::~code_executor() { stop(); }

kernel::kernel_session& code_executor::session() {
    std::lock_guard lock(mutex_);
    if (session_) return *session_;
    translate_errors([&] {
        kernel::interpreter_search search;
        search.explicit_path = options_.python;
        search.env_override = options_.python_override;
        const auto path = options_.host_environment.find("PATH");
        search.path_variable = path != options_.host_environment.end() ? path->second : "";
        search.environment = process::filter_environment(options_.host_environment,
                                                         process::default_allowlist());
        python_ = kernel::find_interpreter(search).chosen.path;
        return 0;
    });
    std::filesystem::create_directories(options_.workspace);

    kernel::session_options session_options;
    auto& launch = session_options.launch;
    launch.python = python_;
    launch.runtime_directory = options_.runtime_directory;
    launch.working_directory = options_.workspace;
    launch.transport = options_.transport;
    launch.environment = process::filter_environment(options_.host_environment,
                                                     process::default_allowlist());
    if (!launch.environment.count("LANG")) launch.environment["LANG"] = "C.UTF-8";
    for (const auto& [name, value] : options_.kernel_env) launch.environment[name] = value;
    session_options.images_directory = options_.images_directory;
    session_options.max_output_bytes = options_.max_output_bytes;
    session_options.start_timeout = options_.start_timeout;
    session_options.keep_spare = options_.keep_spare_kernel;
    session_ = std::make_unique<kernel::kernel_session>(std::move(session_options));
    core::logger("app")->info("kernel interpreter {}, workspace {}", python_.string(),
                              options_.workspace.string());
    return *session_;
}

void code_executor::start() {
    auto& s = session();
    translate_errors([&] {
        s.start();
        return 0;
    });
}

void code_executor::stop() {
    std::unique_ptr<kernel::kernel_session> session;
    {
        std::lock_guard lock(mutex_);
        session = std::move(session_);
    }
    if (session) session->stop();
}

code_execution_result code_executor::execute(const std::string& code,
                                             std::optional<std::chrono::milliseconds> timeout) {
    auto& s = session();
    return translate_errors([&] { return to_api(s.run(code, timeout)); });
}

code_execution_stream code_executor::stream(const std::string& code,
                                            std::optional<std::chrono::milliseconds> timeout) {
    auto& s = session();
    return translate_errors([&] { return code_execution_stream(s.execute(code, timeout)); });
}

void code_executor::reset() {
    auto& s = session();
    translate_errors([&] {
        s.reset();
        return 0;
    });
}

void code_executor::cancel() {
    std::lock_guard lock(mutex_);
    if (session_) session_->cancel();
}

const std::filesystem::path& code_executor::python() const { return python_; }

int code_executor::kernel_pid() const {
    std::lock_guard lock(mutex_);
    return session_ ? session_->kernel_pid() : 0;
}

}  // namespace ipybox
