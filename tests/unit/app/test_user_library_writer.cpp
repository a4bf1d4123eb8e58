// Saving into the user's gentools library on a sandboxed kernel's behalf: what is written, what
// is refused, and links planted in the library that must not be followed (each with a control
// showing that a plain write through the same path would have landed outside).
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "ipybox/gentools/user_library_writer.hpp"
#include "ipybox/toolserver/tool_invoker.hpp"
#include "test_paths.hpp"

namespace fs = std::filesystem;
using ipybox::app::user_library_writer;
using ipybox::toolserver::gentool_save;

namespace {

gentool_save shout(bool overwrite = false) {
    gentool_save save;
    save.category = "text";
    save.name = "shout";
    save.files = {
        {"__init__.py", "from .api import *\n"}, {"api.py", "API\n"}, {"impl.py", "IMPL\n"}};
    save.category_init = "\"\"\"Text actions.\"\"\"\n";
    save.overwrite = overwrite;
    return save;
}

std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace

TEST_SUITE("app.user_library_writer") {
    TEST_CASE("writes the action and a missing category init, creating the library") {
        const auto base = ipybox::testing::fresh_directory("library-writer");
        user_library_writer writer(base / "library");
        const auto outcome = writer.save(shout());
        REQUIRE(outcome.package);
        CHECK(*outcome.package == base / "library" / "text" / "shout");
        CHECK(read(base / "library/text/shout/api.py") == "API\n");
        CHECK(read(base / "library/text/shout/impl.py") == "IMPL\n");
        CHECK(read(base / "library/text/__init__.py") == "\"\"\"Text actions.\"\"\"\n");
    }

    TEST_CASE("an existing action is never replaced unless overwrite is asked for") {
        const auto base = ipybox::testing::fresh_directory("library-writer-exists");
        user_library_writer writer(base);
        REQUIRE(writer.save(shout()).package);
        std::ofstream(base / "text/shout/api.py") << "EDITED\n";
        std::ofstream(base / "text/__init__.py") << "MINE\n";
        const auto again = writer.save(shout());
        CHECK_FALSE(again.package);
        CHECK(again.error_type == ipybox::toolserver::error_type::exists);
        CHECK(read(base / "text/shout/api.py") == "EDITED\n");
        REQUIRE(writer.save(shout(true)).package);
        CHECK(read(base / "text/shout/api.py") == "API\n");
        CHECK(read(base / "text/__init__.py") == "MINE\n");  // a category init is kept
    }

    TEST_CASE("hostile names are refused again by the writer itself") {
        const auto base = ipybox::testing::fresh_directory("library-writer-names");
        user_library_writer writer(base / "library");
        for (const auto* bad : {"..", "../../outside", "a/b", "import", "_x", ""}) {
            auto save = shout();
            save.name = bad;
            CHECK(writer.save(save).error_type == ipybox::toolserver::error_type::bad_request);
            save = shout();
            save.files["../escape.py"] = "x";
            CHECK(writer.save(save).error_type == ipybox::toolserver::error_type::bad_request);
        }
        CHECK_FALSE(fs::exists(base / "outside"));
        CHECK_FALSE(fs::exists(base / "escape.py"));
    }

    TEST_CASE("a category planted as a link out of the library is refused, not followed") {
        const auto base = ipybox::testing::fresh_directory("library-writer-link");
        const auto outside = base / "outside";
        fs::create_directories(outside);
        fs::create_directories(base / "library");
        fs::create_directory_symlink(outside, base / "library" / "text");
        // Control: a plain write through the planted link lands outside the library.
        fs::create_directories(base / "library/text/probe");
        CHECK(fs::exists(outside / "probe"));
        fs::remove(outside / "probe");

        user_library_writer writer(base / "library");
        const auto outcome = writer.save(shout());
        CHECK_FALSE(outcome.package);
        CHECK(outcome.error_type == ipybox::toolserver::error_type::unsafe_path);
        CHECK(fs::is_empty(outside));
    }

    TEST_CASE("an action folder planted as a link is refused, not followed") {
        const auto base = ipybox::testing::fresh_directory("library-writer-action-link");
        const auto outside = base / "outside";
        fs::create_directories(outside);
        fs::create_directories(base / "library/text");
        fs::create_directory_symlink(outside, base / "library/text/shout");
        user_library_writer writer(base / "library");
        const auto outcome = writer.save(shout(true));
        CHECK(outcome.error_type == ipybox::toolserver::error_type::unsafe_path);
        CHECK(fs::is_empty(outside));
    }

    TEST_CASE(
        "a file planted as a link is refused, and replaced rather than followed on overwrite") {
        const auto base = ipybox::testing::fresh_directory("library-writer-file-link");
        const auto target = base / "victim.txt";
        std::ofstream(target) << "precious\n";
        fs::create_directories(base / "library/text/shout");
        fs::create_symlink(target, base / "library/text/shout/api.py");
        // Control: writing the path the plain way goes through the link.
        std::ofstream(base / "library/text/shout/api.py", std::ios::app) << "reached\n";
        CHECK(read(target) == "precious\nreached\n");
        std::ofstream(target) << "precious\n";

        user_library_writer writer(base / "library");
        CHECK(writer.save(shout()).error_type == ipybox::toolserver::error_type::exists);
        CHECK(read(target) == "precious\n");
        REQUIRE(writer.save(shout(true)).package);
        CHECK(read(target) == "precious\n");
        CHECK_FALSE(fs::is_symlink(base / "library/text/shout/api.py"));
        CHECK(read(base / "library/text/shout/api.py") == "API\n");
    }
}
