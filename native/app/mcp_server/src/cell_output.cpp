#include "cell_output.hpp"

#include "ipybox/core/base64.hpp"
#include "ipybox/core/clipping.hpp"
#include "ipybox/workspace/bounded_read.hpp"

namespace ipybox::app {
namespace {

using nlohmann::json;

json text_block(std::string text) {
    return {{"type", "text"}, {"text", std::move(text)}};
}

// Runs `save` on `text`, or says why it could not: a refused save (a link planted at
// .ipybox/outputs) must not cost the visible output.
std::string saved_where(const cell_output_options& options, const std::string& text,
                        const char* what) {
    if (!options.save_full_output) return {};
    try {
        return std::string("; ") + what + " is in " + options.save_full_output(text).string();
    } catch (const std::exception& e) {
        return std::string("; ") + what + " was not saved: " + e.what();
    }
}

// The images of a result: their list for the text, and as many as fit inline as image blocks.
// Keeps a result (and ipybox's memory while building it) bounded whatever a cell displays.
class image_section {
  public:
    image_section(const std::vector<std::filesystem::path>& images,
                  const cell_output_options& options, json& blocks)
        : options_(options), blocks_(blocks) {
        const std::size_t shown = std::min(images.size(), max_images_per_result);
        const std::size_t head = shown / 2;
        for (std::size_t i = 0; i < head; ++i) add(images[i]);
        if (images.size() > shown) {
            const auto left_out = images.size() - shown;
            std::string all;
            for (const auto& image : images) all += image.string() + "\n";
            lines_ += "- [... " + std::to_string(left_out) +
                      " more images left out of this result (over " +
                      std::to_string(max_images_per_result) + " in one result); all " +
                      std::to_string(images.size()) + " stay in " +
                      images.front().parent_path().string() +
                      saved_where(options_, all, "the list of them") + " ...]\n";
        }
        for (std::size_t i = images.size() - (shown - head); i < images.size(); ++i) {
            add(images[i]);
        }
    }

    // The text that follows the output: the list and what was not sent inline.
    std::string text() const {
        if (lines_.empty()) return {};
        std::string text = "\n\nGenerated images:\n\n" + lines_;
        if (not_inlined_ > 0) {
            text += "\n[ipybox] " + std::to_string(not_inlined_) +
                    " of these images are not included in this result (over " +
                    std::to_string(max_inline_image_bytes / (1024 * 1024)) +
                    " MiB of images in one result); open them from their files.\n";
        }
        return text;
    }

  private:
    void add(const std::filesystem::path& image) {
        lines_ += "- [" + image.stem().string() + "](" + image.string() + ")\n";
        if (!options_.inline_images) return;
        // Without following a link (the kernel could swap one in after ipybox wrote the file),
        // no FIFO or device, and only while the result stays small: every image is a file too.
        std::optional<std::string> bytes;
        try {
            bytes = workspace::read_file_beneath(options_.workspace, image,
                                                 max_inline_image_bytes - inlined_bytes_);
        } catch (const std::exception&) {
            bytes.reset();
        }
        if (!bytes) {
            ++not_inlined_;
            return;
        }
        inlined_bytes_ += bytes->size();
        blocks_.push_back(
            {{"type", "image"}, {"data", core::base64_encode(*bytes)}, {"mimeType", "image/png"}});
    }

    const cell_output_options& options_;
    json& blocks_;  // the result's content array
    std::string lines_;
    std::size_t inlined_bytes_ = 0;
    std::size_t not_inlined_ = 0;
};

}  // namespace

std::string clip_output(const std::string& text, const cell_output_options& options) {
    const std::size_t head = options.max_chars * 2 / 5;
    return core::clip_characters(text, head, options.max_chars - head, [&](std::size_t omitted) {
        return "\n\n[... " + std::to_string(omitted) + " characters omitted" +
               saved_where(options, text, "the full output") + " ...]\n\n";
    });
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
    const image_section images(result.images, options, out.content);
    text = clip_output(text, options) + images.text();
    out.content.insert(out.content.begin(), text_block(std::move(text)));
    return out;
}

mcp::session::call_tool_result cell_error(const code_execution_failure& failure,
                                          const cell_output_options& options) {
    std::string text;
    if (!failure.output.empty()) text = failure.output + "\n\n";
    using kind = code_execution_failure::kind;
    switch (failure.error_kind) {
        case kind::exception:
            break;
        case kind::timeout:
            text += "TimeoutError: ";
            break;
        case kind::kernel_died:
            text += "KernelDied: ";
            break;
        case kind::start_failed:
            text += "KernelStartError: ";
            break;
    }
    text += failure.message;
    mcp::session::call_tool_result out;
    out.is_error = true;
    out.content.push_back(text_block(clip_output(text, options)));
    return out;
}

}  // namespace ipybox::app
