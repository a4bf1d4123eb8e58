#pragma once
// The one way ipybox starts Python on the host, outside any sandbox (the interpreter probe, pip
// for install_package, doctor's checks). Such an interpreter must never import what the kernel
// may have written into the workspace (a planted json.py, pip/, site.py, sitecustomize.py,
// usercustomize.py, a .pth file in a user site):
//   - `-I` (isolated mode): neither the working directory nor the script's directory goes on
//     sys.path, PYTHON* variables are ignored, the user site is off;
//   - PYTHONSAFEPATH=1 as well, for interpreters that honour it and a wrapper that drops -I;
//   - the working directory is "/", never the workspace (relative paths must be made absolute
//     by the caller);
//   - the environment is the caller's explicit choice (nothing inherited).
#include <filesystem>
#include <string>
#include <vector>

#include "ipybox/process/child_process.hpp"

namespace ipybox::process {

spawn_options host_python(const std::filesystem::path& python,
                          const std::vector<std::string>& arguments, environment_map environment);

}  // namespace ipybox::process
