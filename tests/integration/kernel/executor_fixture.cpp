#include "executor_fixture.hpp"

#include <doctest/doctest.h>

#include <fstream>
#include <thread>

#include "ipybox/process/environment.hpp"
#include "test_paths.hpp"

namespace ipybox::testing {

code_executor_options executor_options_for(const std::string& name) {
    code_executor_options options;
    options.workspace = fresh_directory(name);
    options.host_environment = process::current_environment();
    options.runtime_directory = source_dir() / "native" / "python";
    options.keep_spare_kernel = false;
    return options;
}

code_execution_error expect_error(code_executor& executor, const std::string& code,
                                  std::optional<std::chrono::milliseconds> timeout) {
    try {
        const auto result = executor.execute(code, timeout);
        FAIL("expected an error, got output: " << result.text);
    } catch (const code_execution_error& e) {
        return e;
    }
    throw std::logic_error("unreachable");
}

const char* const ignores_interrupts =
    "import time\n"
    "while True:\n"
    "    try:\n"
    "        time.sleep(10)\n"
    "    except KeyboardInterrupt:\n"
    "        pass";

std::filesystem::path write_script(const std::filesystem::path& dir, const std::string& name,
                                   const std::string& body) {
    const auto path = dir / name;
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
    return path;
}

}  // namespace ipybox::testing

int ipybox::testing::start_escaping_child(code_executor& executor,
                                          const std::filesystem::path& pid_file) {
    executor.execute(
        "import subprocess\n"
        "subprocess.Popen(['setsid', 'sh', '-c', 'trap \"\" TERM; echo $$ > " +
        pid_file.string() + "; exec sleep 300'])");
    int pid = 0;
    for (int i = 0; i < 500 && pid == 0; ++i) {
        std::ifstream in(pid_file);
        if (!(in >> pid)) pid = 0;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return pid;
}
