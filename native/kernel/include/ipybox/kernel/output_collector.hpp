#pragma once
// Turns the IOPub events of one execution into chunks, a capped text, and saved images.
// Not thread-safe: owned by one execution stream.
#include <filesystem>
#include <optional>

#include "ipybox/core/bounded_text.hpp"
#include "ipybox/kernel/execution.hpp"
#include "ipybox/kernel/kernel_events.hpp"

namespace ipybox::kernel {

class output_collector {
  public:
    // `workspace` is the trusted root: images below it are written through its descriptor and
    // never through a link the kernel planted (workspace/directory.hpp).
    output_collector(std::filesystem::path workspace, std::filesystem::path images_directory,
                     std::size_t max_output_bytes);

    // The chunk to hand to the consumer, if the output produced one. Images are written to the
    // images directory as <8 hex digits>.png (the directory is created on first use); an image
    // that cannot be written becomes a line of text saying why (naming a refused link).
    std::optional<output_chunk> add(const stream_output& output);
    std::optional<output_chunk> add(const display_output& output);

    // Accumulated text with trailing white space removed.
    std::string text() const;
    const std::vector<std::filesystem::path>& images() const { return images_; }
    std::size_t omitted_bytes() const { return text_.dropped_bytes(); }

  private:
    std::filesystem::path workspace_;
    std::filesystem::path images_directory_;
    core::bounded_text text_;
    std::vector<std::filesystem::path> images_;
};

}  // namespace ipybox::kernel
