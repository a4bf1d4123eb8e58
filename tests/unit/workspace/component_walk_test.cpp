// The component walk (component_walk.hpp), the resolution the POSIX and portable builds use for
// every path and the others use to name what their one-call resolution refused: a link or a
// non-directory at any component is refused, and nothing is opened or created through it.
// Each attack has its control: the same tree with real directories opens.
#include "component_walk.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <test_paths.hpp>

#include "beneath.hpp"
#include "file_helpers.hpp"
#include "ipybox/workspace/directory.hpp"

namespace fs = std::filesystem;
using namespace ipybox::workspace;

namespace {

const std::vector<std::string> parts{"a", "b", "c", "d"};

// A workspace holding a/b/c/d and, beside it, `outside` holding the same tree: a link planted
// at a component of the workspace's tree points at the outside copy of that component, so a walk
// that followed it would succeed and reach outside.
struct trees {
    fs::path base;
    fs::path workspace;
    fs::path outside;
    int fd = -1;

    explicit trees(const std::string& name)
        : base(ipybox::testing::fresh_directory(name)),
          workspace(base / "workspace"),
          outside(base / "outside") {
        fs::create_directories(workspace / "a" / "b" / "c" / "d");
        fs::create_directories(outside / "a" / "b" / "c" / "d");
        fd = ::open(workspace.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        REQUIRE(fd >= 0);
    }
    trees(const trees&) = delete;
    trees& operator=(const trees&) = delete;
    ~trees() { ::close(fd); }

    // The first `count` components, as a path below `root`.
    static fs::path prefix(const fs::path& root, std::size_t count) {
        fs::path out = root;
        for (std::size_t i = 0; i < count; ++i) out /= parts[i];
        return out;
    }
    // Replaces component `index` of the workspace's tree with a link to the outside copy.
    fs::path plant_link(std::size_t index) const {
        const auto at = prefix(workspace, index + 1);
        fs::remove_all(at);
        fs::create_directory_symlink(prefix(outside, index + 1), at);
        return at;
    }
    // The outside tree holds exactly what it was made with.
    void outside_untouched() const {
        CHECK(ipybox::testing::entry_names(prefix(outside, 4)).empty());
        CHECK_FALSE(fs::exists(prefix(outside, 4) / "e"));
    }
};

}  // namespace

TEST_SUITE("workspace.component_walk") {
    TEST_CASE("the walk opens a tree of real directories and creates what is missing (control)") {
        const trees t("walk-control");
        const int fd = detail::walk_beneath(t.fd, parts, t.workspace, false);
        CHECK(fd >= 0);
        ::close(fd);
        auto deeper = parts;
        deeper.push_back("e");
        CHECK_THROWS_AS(detail::walk_beneath(t.fd, deeper, t.workspace, false), std::system_error);
        const int created = detail::walk_beneath(t.fd, deeper, t.workspace, true);
        CHECK(created >= 0);
        ::close(created);
        CHECK(fs::is_directory(t.workspace / "a" / "b" / "c" / "d" / "e"));
    }

    TEST_CASE("the walk refuses a link planted at each component, naming it") {
        for (std::size_t index = 0; index < parts.size(); ++index) {
            for (const bool create : {false, true}) {
                CAPTURE(index);
                CAPTURE(create);
                const trees t("walk-link-" + std::to_string(index));
                const auto planted = t.plant_link(index);
                auto deeper = parts;
                deeper.push_back("e");
                CHECK_THROWS_WITH_AS(
                    detail::walk_beneath(t.fd, deeper, t.workspace, create),
                    doctest::Contains((planted.string() + ": it is a symbolic link").c_str()),
                    unsafe_workspace_path);
                CHECK(fs::is_symlink(planted));
                t.outside_untouched();
            }
        }
    }

    TEST_CASE("the walk refuses a file where a directory is expected, at each component") {
        for (std::size_t index = 0; index < parts.size(); ++index) {
            CAPTURE(index);
            const trees t("walk-file-" + std::to_string(index));
            const auto at = trees::prefix(t.workspace, index + 1);
            fs::remove_all(at);
            ipybox::testing::write_text(at, "a file");
            CHECK_THROWS_WITH_AS(
                detail::walk_beneath(t.fd, parts, t.workspace, true),
                doctest::Contains((at.string() + ": it is not a directory").c_str()),
                unsafe_workspace_path);
        }
    }

    TEST_CASE("the platform's one-call resolution refuses a link at each component") {
        for (std::size_t index = 0; index < parts.size(); ++index) {
            CAPTURE(index);
            const trees t("beneath-link-" + std::to_string(index));
            t.plant_link(index);
            // Where the platform has such a call (-2: it has none), it refuses; the caller walks.
            const int fd = detail::open_directory_beneath(t.fd, "a/b/c/d");
            CHECK(fd < 0);
            if (fd >= 0) ::close(fd);
            const auto root = directory::open_root(t.workspace, false);
            CHECK_THROWS_AS(root.open("a/b/c/d"), unsafe_workspace_path);
            CHECK_THROWS_AS(root.make_directories("a/b/c/d/e"), unsafe_workspace_path);
            CHECK_THROWS_AS(root.write_file("a/b/c/d/file.txt", "leak"), unsafe_workspace_path);
            CHECK_THROWS_AS(root.remove_tree("a/b/c/d"), unsafe_workspace_path);
            t.outside_untouched();
        }
    }

    TEST_CASE("exchange swaps two entries, or says it cannot and leaves both") {
        const trees t("exchange");
        ipybox::testing::write_text(t.workspace / "one", "1");
        ipybox::testing::write_text(t.workspace / "two", "2");
        const auto root = directory::open_root(t.workspace, false);
        const bool swapped = root.exchange("one", "two");
        CHECK(ipybox::testing::read_text(t.workspace / "one") == (swapped ? "2" : "1"));
        CHECK(ipybox::testing::read_text(t.workspace / "two") == (swapped ? "1" : "2"));
    }
}
