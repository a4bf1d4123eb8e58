#include "component_walk.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include "ipybox/workspace/directory.hpp"

namespace ipybox::workspace::detail {
namespace fs = std::filesystem;

void fail(int error, const std::string& what, const fs::path& path) {
    throw std::system_error(error, std::generic_category(), what + " " + path.string());
}

void refuse(const fs::path& path, const char* why) {
    throw unsafe_workspace_path("refusing " + path.string() + ": " + why +
                                " (ipybox never writes or deletes through a link in the "
                                "workspace; remove it or replace it with a real directory)");
}

void fail_open(int dirfd, const std::string& name, int error, const fs::path& shown) {
    struct stat info {};
    if (::fstatat(dirfd, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0) {
        if (S_ISLNK(info.st_mode)) refuse(shown, "it is a symbolic link");
        if (!S_ISDIR(info.st_mode)) refuse(shown, "it is not a directory");
    }
    fail(error, "cannot open", shown);
}

std::vector<std::string> components(const fs::path& relative) {
    if (relative.is_absolute()) {
        throw unsafe_workspace_path("refusing " + relative.string() +
                                    ": expected a path relative to the workspace");
    }
    std::vector<std::string> parts;
    for (const auto& part : relative) {
        const auto text = part.string();
        if (text.empty() || text == ".") continue;
        if (text == "..") refuse(relative, "it contains '..'");
        parts.push_back(text);
    }
    return parts;
}

int walk_beneath(int dirfd, const std::vector<std::string>& parts, const fs::path& shown,
                 bool create) {
    int current = ::fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
    if (current < 0) fail(errno, "cannot open", shown);
    fs::path here = shown;
    for (const auto& part : parts) {
        here /= part;
        // O_NOFOLLOW refuses a link at this component (ELOOP, or ENOTDIR with O_DIRECTORY on
        // some systems); fail_open then says which it was.
        int next = ::openat(current, part.c_str(), directory_flags);
        if (next < 0 && errno == ENOENT && create) {
            if (::mkdirat(current, part.c_str(), 0755) != 0 && errno != EEXIST) {
                const int error = errno;
                ::close(current);
                fail(error, "cannot create", here);
            }
            next = ::openat(current, part.c_str(), directory_flags);
        }
        if (next < 0) {
            const int error = errno;
            try {
                fail_open(current, part, error, here);
            } catch (...) {
                ::close(current);
                throw;
            }
        }
        ::close(current);
        current = next;
    }
    return current;
}

}  // namespace ipybox::workspace::detail
