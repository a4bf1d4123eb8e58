#pragma once
// Writes code actions into the user's gentools library for a kernel that may not write there
// (the tool server's POST /gentools, under --sandbox).
//
// The library's root is the user's choice and is trusted as given; everything below it is
// resolved through a directory descriptor without following links
// (workspace::directory: openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), because other
// sessions' kernels, or this user's other tools, may have planted links there. A link, a file
// where a folder belongs, or a file of the action that exists (without overwrite) refuses the
// save; files are written to a temporary name and renamed into place, so a link at a file's
// name is replaced, never written through. The root is created when missing.
//
// Thread-safety: save() may be called from several threads; saves run one at a time.
#include <filesystem>
#include <mutex>

#include "ipybox/toolserver/library_writer.hpp"

namespace ipybox::app {

class user_library_writer : public toolserver::library_writer {
  public:
    explicit user_library_writer(std::filesystem::path root) : root_(std::move(root)) {}

    // Checks the request again (names, files, sizes) before touching anything.
    toolserver::gentool_save_outcome save(const toolserver::gentool_save& request) override;

    const std::filesystem::path& root() const { return root_; }

  private:
    std::filesystem::path root_;
    std::mutex mutex_;
};

}  // namespace ipybox::app
