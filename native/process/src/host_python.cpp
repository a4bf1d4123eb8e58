#include "ipybox/process/host_python.hpp"

namespace ipybox::process {

spawn_options host_python(const std::filesystem::path& python,
                          const std::vector<std::string>& arguments, environment_map environment) {
    spawn_options options;
    options.executable = python;
    options.arguments.reserve(arguments.size() + 1);
    options.arguments.emplace_back("-I");
    for (const auto& argument : arguments) options.arguments.push_back(argument);
    environment.insert_or_assign("PYTHONSAFEPATH", std::string(1, '1'));
    options.environment = std::move(environment);
    options.working_directory = "/";
    return options;
}

}  // namespace ipybox::process
