#pragma once
// A directory only the current user can enter (mode 0700), removed with its contents on
// destruction. Holds kernel connection files, ipc:// sockets and the tool server's socket.
//
// Paths are kept short on purpose: a Unix socket path must fit in 107 bytes.
#include <filesystem>
#include <string>

namespace ipybox::core {

class private_directory {
  public:
    // Creates `<base>/<prefix>XXXXXX` with mkdtemp. `base` defaults to $TMPDIR-free /tmp so that
    // socket paths stay short. Throws std::system_error on failure.
    explicit private_directory(const std::string& prefix = "ipybox-",
                               const std::filesystem::path& base = "/tmp");
    ~private_directory();

    private_directory(const private_directory&) = delete;
    private_directory& operator=(const private_directory&) = delete;

    const std::filesystem::path& path() const { return path_; }

  private:
    std::filesystem::path path_;
};

}  // namespace ipybox::core
