// workspace::read_regular_file and list_entries: what kernel code plants where ipybox reads (a
// FIFO, a link to a device, a huge file, a link on the way) is refused before a byte is read.
// Each attack has a control showing what a plain reader of the same path gets.
#include "ipybox/workspace/bounded_read.hpp"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <test_paths.hpp>
#include <thread>

#include "file_helpers.hpp"

namespace fs = std::filesystem;
using namespace ipybox::workspace;

namespace {

// What `std::ifstream` (the readers this replaced) gets from the first `limit` bytes of `path`.
std::size_t plain_read(const fs::path& path, std::size_t limit) {
    std::ifstream in(path, std::ios::binary);
    std::string chunk(limit, '\0');
    in.read(chunk.data(), static_cast<std::streamsize>(limit));
    return static_cast<std::size_t>(in.gcount());
}

}  // namespace

TEST_SUITE("workspace.bounded_read") {
    TEST_CASE("reads a regular file whole, and a missing file is nullopt") {
        const auto dir = ipybox::testing::fresh_directory("bounded-read");
        ipybox::testing::write_text(dir / "gentools" / "a" / "api.py", "import x\n");
        const auto root = directory::open_root(dir, false);
        CHECK(read_regular_file(root, "gentools/a/api.py", 100) == "import x\n");
        CHECK(read_regular_file(dir / "gentools/a/api.py", 100) == "import x\n");
        CHECK_FALSE(read_regular_file(root, "gentools/a/impl.py", 100));
        CHECK_FALSE(read_regular_file(root, "gentools/missing/impl.py", 100));
        CHECK_FALSE(read_regular_file(dir / "missing.env", 100));
    }

    TEST_CASE("a FIFO is refused without waiting for a writer") {
        const auto dir = ipybox::testing::fresh_directory("bounded-read-fifo");
        REQUIRE(::mkfifo((dir / "impl.py").c_str(), 0600) == 0);
        const auto root = directory::open_root(dir, false);
        // Returning at all is the point: a blocking open or read would wait here for ever.
        CHECK_THROWS_WITH_AS(read_regular_file(root, "impl.py", 1024),
                             doctest::Contains("it is a FIFO"), unreadable_file);
        CHECK_THROWS_AS(read_regular_file(dir / "impl.py", 1024, link_rule::follow),
                        unreadable_file);

        // Control: a plain reader opens the FIFO and takes whatever its writer sends, when it
        // sends it (the writer's open returns only once a reader is there).
        std::thread writer([&] {
            const int fd = ::open((dir / "impl.py").c_str(), O_WRONLY | O_CLOEXEC);
            CHECK(fd >= 0);
            if (fd < 0) return;
            CHECK(::write(fd, "planted", 7) == 7);
            ::close(fd);
        });
        CHECK(plain_read(dir / "impl.py", 1024) == 7);
        writer.join();
    }

    TEST_CASE("a link to /dev/zero is refused, as a link and as a device") {
        const auto dir = ipybox::testing::fresh_directory("bounded-read-zero");
        fs::create_symlink("/dev/zero", dir / "impl.py");
        const auto root = directory::open_root(dir, false);
        CHECK_THROWS_WITH_AS(read_regular_file(root, "impl.py", 1024),
                             doctest::Contains("symbolic link"), unreadable_file);
        CHECK_THROWS_WITH_AS(read_regular_file(dir / "impl.py", 1024),
                             doctest::Contains("symbolic link"), unreadable_file);
        // Following the user's own links still refuses what is not a regular file.
        CHECK_THROWS_WITH_AS(read_regular_file(dir / "impl.py", 1024, link_rule::follow),
                             doctest::Contains("character device"), unreadable_file);
        // Control: a plain reader never reaches the end of it.
        CHECK(plain_read(dir / "impl.py", 1 << 20) == (1u << 20));
    }

    TEST_CASE("a link in a folder on the way is refused") {
        const auto dir = ipybox::testing::fresh_directory("bounded-read-parent");
        ipybox::testing::write_text(dir / "outside" / "secret.py", "secret");
        fs::create_directories(dir / "ws");
        fs::create_directory_symlink(dir / "outside", dir / "ws" / "gentools");
        const auto root = directory::open_root(dir / "ws", false);
        CHECK_THROWS_AS(read_regular_file(root, "gentools/secret.py", 1024), unsafe_workspace_path);
        // Control: the path reaches the file when links are followed.
        CHECK(plain_read(dir / "ws" / "gentools" / "secret.py", 1024) == 6);
    }

    TEST_CASE("a file over the limit is refused, one at the limit is read") {
        const auto dir = ipybox::testing::fresh_directory("bounded-read-size");
        ipybox::testing::write_text(dir / "at.py", std::string(4096, 'a'));
        ipybox::testing::write_text(dir / "over.py", std::string(4097, 'a'));
        const auto root = directory::open_root(dir, false);
        CHECK(read_regular_file(root, "at.py", 4096)->size() == 4096);
        CHECK_THROWS_WITH_AS(read_regular_file(root, "over.py", 4096),
                             doctest::Contains("larger than 4096 bytes"), unreadable_file);
        CHECK(read_regular_file(root, "over.py", 5000)->size() == 4097);
    }

    TEST_CASE("a listing reports links and other kinds without following them, up to a count") {
        const auto dir = ipybox::testing::fresh_directory("bounded-read-list");
        fs::create_directories(dir / "category");
        ipybox::testing::write_text(dir / "file.py", "x");
        fs::create_directory_symlink("/", dir / "root_link");
        REQUIRE(::mkfifo((dir / "pipe").c_str(), 0600) == 0);
        const auto root = directory::open_root(dir, false);
        const auto entries = list_entries(root);
        REQUIRE(entries.size() == 4);
        CHECK(entries[0].name == "category");
        CHECK(entries[0].kind == directory::entry::directory);
        CHECK(entries[1].kind == directory::entry::regular_file);
        CHECK(entries[2].name == "pipe");
        CHECK(entries[2].kind == directory::entry::other);
        CHECK(entries[3].name == "root_link");
        CHECK(entries[3].kind == directory::entry::symlink);
        // Control: std::filesystem calls the link a directory (it follows it).
        CHECK(fs::is_directory(dir / "root_link"));
        CHECK(list_entries(root, 2).size() == 2);
    }
}
