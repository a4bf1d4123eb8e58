// The ipybox command line. One file per subcommand (cmd_*.cpp); this file only wires them up.
#include <iostream>

#include "allocator_tuning.hpp"
#include "cmd_doctor.hpp"
#include "cmd_generate.hpp"
#include "cmd_gentools.hpp"
#include "cmd_mcp.hpp"
#include "cmd_run.hpp"
#include "cmd_sdk.hpp"
#include "host_context.hpp"
#include "ipybox/core/log.hpp"
#include "ipybox/core/version.hpp"

int main(int argc, char** argv) {
    using namespace ipybox::cli;
    // Large blocks (a kernel's message, an image) go back to the system when freed.
    tune_allocator();
    CLI::App app{"ipybox: a stateful IPython sandbox for AI agents, with typed MCP tool calling"};
    app.set_version_flag("--version", std::string("ipybox ") + ipybox::core::version);
    app.require_subcommand(0, 1);
    // `ipybox --workspace DIR` (no subcommand) serves MCP, as the reference's command line did.
    mcp_command_options mcp;
    app.add_option("--workspace", mcp.workspace,
                   "Without a subcommand: serve MCP for this workspace");
    add_sandbox_flags(app, mcp.sandbox, mcp.sandbox_config,
                      mcp.guessable_secrets);  // `ipybox --workspace . --sandbox`
    app.add_option("--log-level", mcp.log_level,
                   "Without a subcommand: the MCP server's log level (any case, as the "
                   "reference's DEBUG|INFO|WARNING|ERROR|CRITICAL)");

    run_options run;
    doctor_options doctor;
    generate_command_options generate;
    gentools_options gentools;
    sdk_options sdk;
    setup_mcp(app, mcp);
    setup_run(app, run);
    setup_generate(app, generate);
    setup_doctor(app, doctor);
    setup_gentools(app, gentools);
    setup_sdk(app, sdk);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // --help and --version exit 0; every usage error exits 2, whatever CLI11's own code.
        return app.exit(e) == 0 ? exit_ok : exit_usage;
    }
    // The top-level --sandbox belongs to the MCP server; before another subcommand it would be
    // silently ignored and that subcommand's kernel would run unsandboxed.
    const bool top_level_sandbox = app.count("--sandbox") > 0 || app.count("--sandbox-config") > 0;
    const bool other_subcommand = !app.get_subcommands().empty() && !app.got_subcommand("mcp");
    if (top_level_sandbox && other_subcommand) {
        std::cerr << "ipybox: put --sandbox after the subcommand (ipybox run --sandbox ...)\n";
        return exit_usage;
    }
    if (app.count("--log-level") > 0 && other_subcommand) {
        std::cerr << "ipybox: put --log-level after the subcommand\n";
        return exit_usage;
    }
    const auto environment = ipybox::process::current_environment();
    try {
        if (app.got_subcommand("run")) {
            ipybox::core::set_log_level(run.kernel.log_level);
            return run_run(run, environment);
        }
        if (app.got_subcommand("mcp") ||
            (app.get_subcommands().empty() && app.count("--workspace") > 0)) {
            return run_mcp(mcp, environment);
        }
        if (app.got_subcommand("generate")) {
            ipybox::core::set_log_level(generate.log_level);
            return run_generate(generate, environment);
        }
        if (app.got_subcommand("doctor")) return run_doctor(doctor, environment);
        if (app.got_subcommand("sdk")) {
            ipybox::core::set_log_level(sdk.kernel.log_level);
            return run_sdk(sdk, environment);
        }
        if (app.got_subcommand("gentools")) {
            ipybox::core::set_log_level(gentools.kernel.log_level);
            return run_gentools_check(gentools, environment);
        }
    } catch (const CLI::Error& e) {
        std::cerr << "ipybox: " << e.what() << "\n";
        return exit_usage;
    } catch (const std::exception& e) {
        std::cerr << "ipybox: " << ipybox::cli::screened(e.what()) << "\n";
        return exit_execution_error;
    }
    std::cerr << app.help();
    return exit_usage;
}
