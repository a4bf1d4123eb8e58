// What install_with_pip refuses before pip runs
// (native/app/executor/include/ipybox/executor/package_installer.hpp).
#include <doctest/doctest.h>

#include "ipybox/executor/package_installer.hpp"

using ipybox::app::install_request;
using ipybox::app::install_with_pip;

TEST_CASE("a package_name of a megabyte is refused by its length, under --sandbox too") {
    install_request request;
    request.python = "/nonexistent/python3";  // never reached
    request.workspace = "/nonexistent";
    request.refuse_local_paths = true;  // the check that read the spec with std::regex
    request.spec = "a" + std::string(1000 * 1000, 'b');
    const auto outcome = install_with_pip(request);
    CHECK_FALSE(outcome.succeeded);
    CHECK(outcome.output == "package_name is longer than 4096 bytes");
    // Control: a spec of the longest length goes on to the sandbox's check.
    request.spec = "./" + std::string(4094, 'b');
    const auto local = install_with_pip(request);
    CHECK_FALSE(local.succeeded);
    CHECK(local.output.find("installs only from a package index") != std::string::npos);
}
