#include <doctest/doctest.h>

#include "ipybox/kernel/shared_kernel_template.hpp"

using namespace ipybox;
using namespace ipybox::kernel;

namespace {

kernel_launch workspace_launch(const std::string& folder, const std::string& token) {
    kernel_launch launch;
    launch.python = "/usr/bin/python3";
    launch.runtime_directory = "/opt/ipybox/python";
    launch.working_directory = "/srv/ws/" + folder;
    launch.environment = {
        {"PATH", "/usr/bin"},
        {"PYTHONPATH", "/srv/ws/" + folder + "/.ipybox/site-packages:/home/u/.local/x"},
        {"IPYBOX_TOOL_TOKEN", token},
        {"IPYBOX_TOOL_SOCKET", "/tmp/" + token}};
    launch.own_variables = {"IPYBOX_TOOL_TOKEN", "IPYBOX_TOOL_SOCKET"};
    return launch;
}

}  // namespace

TEST_SUITE("kernel.shared_template") {
    TEST_CASE("the template starts without any kernel's own variables, folder or packages") {
        const auto shared = shared_template_launch(workspace_launch("a", "secret-a"));
        CHECK(shared.environment.count("IPYBOX_TOOL_TOKEN") == 0);
        CHECK(shared.environment.count("IPYBOX_TOOL_SOCKET") == 0);
        CHECK(shared.environment.at("PYTHONPATH") == "/home/u/.local/x");
        CHECK(shared.environment.at("PATH") == "/usr/bin");
        CHECK(shared.working_directory == "/opt/ipybox/python");
        CHECK_FALSE(shared.containment);
    }

    TEST_CASE("an entry beside the working directory, or its parent, is not inside it") {
        auto launch = workspace_launch("a", "t");
        launch.environment["PYTHONPATH"] = "/srv/ws/ab:/srv/ws:/srv/ws/a/../b:/srv/ws/a/lib:";
        const auto shared = shared_template_launch(launch);
        CHECK(shared.environment.at("PYTHONPATH") == "/srv/ws/ab:/srv/ws:/srv/ws/a/../b");
        launch.environment["PYTHONPATH"] = "/srv/ws/a/.ipybox/site-packages";
        CHECK(shared_template_launch(launch).environment.count("PYTHONPATH") == 0);
    }

    TEST_CASE("kernels of other workspaces share, another interpreter or variable does not") {
        const auto a = workspace_launch("a", "secret-a");
        CHECK(template_compatibility(a, workspace_launch("b", "secret-b")).empty());
        auto other = workspace_launch("b", "secret-b");
        other.python = "/usr/local/bin/python3";
        CHECK(template_compatibility(a, other) == "another interpreter");
        other = workspace_launch("b", "secret-b");
        other.environment["KERNEL_SETTING"] = "1";
        CHECK(template_compatibility(a, other) == "another value of KERNEL_SETTING");
        CHECK(template_compatibility(other, a) == "another value of KERNEL_SETTING");
        other = workspace_launch("b", "secret-b");
        other.environment["PYTHONPATH"] = "/srv/ws/b/.ipybox/site-packages:/elsewhere";
        CHECK(template_compatibility(a, other) == "another value of PYTHONPATH");
    }

    TEST_CASE("sandboxed kernels never share") {
        auto sandboxed = workspace_launch("b", "t");
        sandboxed.wrap = [](const std::filesystem::path&) { return kernel_wrapping{}; };
        CHECK_FALSE(template_compatibility(workspace_launch("a", "t"), sandboxed).empty());
    }

    TEST_CASE("a stopped shared template reports why kernels start cold, and has no process") {
        shared_kernel_template shared;
        CHECK(shared.cold_reason().empty());
        CHECK(shared.pid() == 0);
        shared.stop();
        CHECK_FALSE(shared.cold_reason().empty());
    }
}
