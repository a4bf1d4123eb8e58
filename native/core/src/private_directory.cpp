#include "ipybox/core/private_directory.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <system_error>
#include <vector>

namespace ipybox::core {

private_directory::private_directory(const std::string& prefix, const std::filesystem::path& base) {
    std::string pattern = (base / (prefix + "XXXXXX")).string();
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    // mkdtemp creates the directory with mode 0700.
    if (::mkdtemp(buffer.data()) == nullptr) {
        throw std::system_error(errno, std::generic_category(),
                                "cannot create a private directory under " + base.string());
    }
    path_ = buffer.data();
}

private_directory::~private_directory() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
}

}  // namespace ipybox::core
