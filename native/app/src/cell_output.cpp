#include "cell_output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "ipybox/core/base64.hpp"

namespace ipybox::app {
namespace {

using nlohmann::json;

// Images sent inline in one result, at most: the rest are listed as files. Keeps a result (and
// ipybox's memory while building it) bounded whatever a cell displays.
constexpr std::size_t max_inline_image_bytes = 8 * 1024 * 1024;

bool starts_code_point(char c) {
    return (static_cast<unsigned char>(c) & 0xc0) != 0x80;
}

std::size_t count_code_points(const std::string& text) {
    std::size_t count = 0;
    for (const char c : text) count += starts_code_point(c) ? 1 : 0;
    return count;
}

// The byte offset where code point number `index` starts (text.size() past the last one).
// Counting, not a table of offsets: the text may be megabytes long.
std::size_t offset_of(const std::string& text, std::size_t index) {
    std::size_t seen = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (!starts_code_point(text[i])) continue;
        if (seen == index) return i;
        ++seen;
    }
    return text.size();
}

json text_block(std::string text) {
    return {{"type", "text"}, {"text", std::move(text)}};
}

}  // namespace

std::string clip_output(const std::string& text, const cell_output_options& options) {
    const std::size_t length = count_code_points(text);
    if (length <= options.max_chars) return text;
    const std::size_t head = options.max_chars * 2 / 5;
    const std::size_t tail = options.max_chars - head;
    const std::size_t omitted = length - head - tail;
    std::string marker = "\n\n[... " + std::to_string(omitted) + " characters omitted";
    if (options.save_full_output) {
        // A refused save (a link planted at .ipybox/outputs) must not cost the visible output.
        try {
            marker += "; the full output is in " + options.save_full_output(text).string();
        } catch (const std::exception& e) {
            marker += "; the full output was not saved: " + std::string(e.what());
        }
    }
    marker += " ...]\n\n";
    return text.substr(0, offset_of(text, head)) + marker +
           text.substr(offset_of(text, length - tail));
}

mcp::session::call_tool_result cell_result(const code_execution_result& result,
                                           const cell_output_options& options) {
    std::string text;
    for (const auto& notice : result.notices) text += "[ipybox] " + notice + "\n\n";
    text += result.text;
    if (result.cancelled) text += (text.empty() ? "" : "\n\n") + std::string("[ipybox] cancelled");
    if (result.omitted_output_bytes > 0) {
        text += "\n\n[ipybox] " + std::to_string(result.omitted_output_bytes) +
                " bytes of output were dropped while the cell ran (output cap)";
    }
    mcp::session::call_tool_result out;
    std::string image_lines;
    std::size_t inlined_bytes = 0;
    std::size_t not_inlined = 0;
    for (const auto& image : result.images) {
        image_lines += "- [" + image.stem().string() + "](" + image.string() + ")\n";
        // Read without following a link (the kernel could swap one in after ipybox wrote the
        // file) and only while the result stays small: every image is also a file, listed.
        const int fd = ::open(image.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        struct stat info {};
        if (fd < 0 || ::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode) ||
            inlined_bytes + static_cast<std::size_t>(info.st_size) > max_inline_image_bytes) {
            if (fd >= 0) ::close(fd);
            ++not_inlined;
            continue;
        }
        std::string bytes(static_cast<std::size_t>(info.st_size), '\0');
        const auto got = ::read(fd, bytes.data(), bytes.size());
        ::close(fd);
        if (got != static_cast<ssize_t>(bytes.size())) {
            ++not_inlined;
            continue;
        }
        inlined_bytes += bytes.size();
        out.content.push_back(
            {{"type", "image"}, {"data", core::base64_encode(bytes)}, {"mimeType", "image/png"}});
    }
    text = clip_output(text, options);
    if (!image_lines.empty()) text += "\n\nGenerated images:\n\n" + image_lines;
    if (not_inlined > 0) {
        text += "\n[ipybox] " + std::to_string(not_inlined) +
                " of these images are not included in this result (over " +
                std::to_string(max_inline_image_bytes / (1024 * 1024)) +
                " MiB of images in one result); open them from their files.\n";
    }
    out.content.insert(out.content.begin(), text_block(std::move(text)));
    return out;
}

mcp::session::call_tool_result cell_error(const code_execution_error& error,
                                          const cell_output_options& options) {
    std::string text;
    if (!error.output().empty()) text = error.output() + "\n\n";
    using kind = code_execution_error::kind;
    switch (error.error_kind()) {
        case kind::exception:
            text += error.what();
            break;
        case kind::timeout:
            text += std::string("TimeoutError: ") + error.what();
            break;
        case kind::kernel_died:
            text += std::string("KernelDied: ") + error.what();
            break;
        case kind::start_failed:
            text += std::string("KernelStartError: ") + error.what();
            break;
    }
    mcp::session::call_tool_result out;
    out.is_error = true;
    out.content.push_back(text_block(clip_output(text, options)));
    return out;
}

}  // namespace ipybox::app
