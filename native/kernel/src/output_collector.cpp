#include "ipybox/kernel/output_collector.hpp"

#include "ipybox/core/base64.hpp"
#include "ipybox/core/clipping.hpp"
#include "ipybox/core/log.hpp"
#include "ipybox/core/random.hpp"
#include "ipybox/core/text.hpp"
#include "ipybox/core/utf8.hpp"
#include "ipybox/workspace/directory.hpp"

namespace ipybox::kernel {

output_collector::output_collector(std::filesystem::path workspace,
                                   std::filesystem::path images_directory,
                                   std::size_t max_output_bytes)
    : workspace_(std::move(workspace)),
      images_directory_(std::move(images_directory)),
      text_(max_output_bytes) {}

std::optional<output_chunk> output_collector::add(const stream_output& output) {
    // Terminal escape codes (colours from `!ls`, cursor moves) mean nothing to an agent.
    std::string text = core::strip_ansi(core::sanitize_utf8(output.text));
    text_.append(text);
    if (output.omitted > 0) {
        // The queue dropped the middle of a long piece (event_queue): same head and tail as
        // the cap here would have kept.
        std::string tail = core::strip_ansi(core::sanitize_utf8(output.tail));
        text_.skip(output.omitted);
        text_.append(tail);
        text += core::omitted_bytes_marker(output.omitted);
        text += tail;
    }
    return output_chunk{output.name, std::move(text), std::nullopt};
}

std::optional<output_chunk> output_collector::add(const display_output& output) {
    const auto png = output.data.find("image/png");
    if (png != output.data.end() && png->is_string()) {
        // The text/plain of a figure ("<Figure size 640x480 with 1 Axes>") says nothing the
        // image does not; only the image is kept.
        const auto bytes = core::base64_decode(png->get<std::string>());
        if (!bytes) {
            core::logger("kernel")->warn("dropped an image/png output that is not valid base64");
            return std::nullopt;
        }
        auto path = images_directory_ / (core::random_hex(4) + ".png");
        try {
            workspace::write_file_beneath(workspace_, path, *bytes);
        } catch (const std::exception& e) {
            core::logger("kernel")->error("cannot write image {}: {}", path.string(), e.what());
            std::string notice = "[ipybox] image not saved: " + std::string(e.what()) + "\n";
            text_.append(notice);
            return output_chunk{"display", std::move(notice), std::nullopt};
        }
        images_.push_back(path);
        return output_chunk{"display", "", path};
    }
    const auto plain = output.data.find("text/plain");
    if (plain == output.data.end() || !plain->is_string()) return std::nullopt;
    std::string text = core::sanitize_utf8(plain->get<std::string>());
    if (text.empty() || text.back() != '\n') text.push_back('\n');
    text_.append(text);
    return output_chunk{"display", std::move(text), std::nullopt};
}

std::string output_collector::text() const {
    std::string text = text_.str();
    const auto end = text.find_last_not_of(" \t\r\n");
    text.erase(end == std::string::npos ? 0 : end + 1);
    return text;
}

}  // namespace ipybox::kernel
