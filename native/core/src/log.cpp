#include "ipybox/core/log.hpp"

#include <spdlog/sinks/sink.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <algorithm>
#include <cctype>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "ipybox/core/redactor.hpp"
#include "ipybox/core/untrusted_text.hpp"

namespace ipybox::core {
namespace {

// In front of every sink: a line passes the redaction rule (redactor.hpp), then shows its
// untrusted parts (a server's stderr and stdout, error texts, names) as text, its line breaks
// kept (untrusted_text.hpp), so that neither a secret nor an escape sequence reaches stderr.
class screening_sink final : public spdlog::sinks::sink {
  public:
    explicit screening_sink(std::shared_ptr<spdlog::sinks::sink> inner)
        : inner_(std::move(inner)) {}

    void log(const spdlog::details::log_msg& message) override {
        if (!inner_->should_log(message.level)) return;
        untrusted_text_options shown;
        shown.keep_line_breaks = true;
        shown.escape_backslashes = false;  // parts of it may be rendered already
        const auto text = render_untrusted(
            redact_secrets(std::string_view(message.payload.data(), message.payload.size())),
            shown);
        auto screened = message;
        screened.payload = spdlog::string_view_t(text.data(), text.size());
        inner_->log(screened);
    }
    void flush() override { inner_->flush(); }
    void set_pattern(const std::string& pattern) override { inner_->set_pattern(pattern); }
    void set_formatter(std::unique_ptr<spdlog::formatter> formatter) override {
        inner_->set_formatter(std::move(formatter));
    }

  private:
    std::shared_ptr<spdlog::sinks::sink> inner_;
};

struct registry {
    std::mutex mutex;
    std::shared_ptr<spdlog::sinks::sink> sink =
        std::make_shared<screening_sink>(std::make_shared<spdlog::sinks::stderr_sink_mt>());
    spdlog::level::level_enum level = spdlog::level::warn;
    std::vector<std::shared_ptr<spdlog::logger>> loggers;
};

registry& the_registry() {
    static registry instance;
    return instance;
}

}  // namespace

std::shared_ptr<spdlog::logger> logger(std::string_view name) {
    auto& reg = the_registry();
    std::lock_guard lock(reg.mutex);
    const std::string full = "ipybox." + std::string(name);
    for (const auto& existing : reg.loggers) {
        if (existing->name() == full) return existing;
    }
    auto created = std::make_shared<spdlog::logger>(full, reg.sink);
    created->set_level(reg.level);
    created->set_pattern("[%H:%M:%S.%e] [%n] [%l] %v");
    reg.loggers.push_back(created);
    return created;
}

void set_log_level(std::string_view level) {
    std::string lowered(level);
    std::transform(lowered.begin(), lowered.end(), lowered.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (lowered == "warning") lowered = "warn";
    const auto parsed = spdlog::level::from_str(lowered);
    if (parsed == spdlog::level::off && lowered != "off") {
        throw std::invalid_argument("unknown log level '" + std::string(level) +
                                    "' (use trace, debug, info, warning, error, critical or off)");
    }
    auto& reg = the_registry();
    std::lock_guard lock(reg.mutex);
    reg.level = parsed;
    for (auto& existing : reg.loggers) existing->set_level(parsed);
}

void set_log_sink(std::shared_ptr<spdlog::sinks::sink> sink) {
    auto& reg = the_registry();
    std::lock_guard lock(reg.mutex);
    reg.sink = std::make_shared<screening_sink>(std::move(sink));
    for (auto& existing : reg.loggers) {
        existing->sinks().clear();
        existing->sinks().push_back(reg.sink);
    }
}

}  // namespace ipybox::core
