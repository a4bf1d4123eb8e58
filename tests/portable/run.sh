#!/usr/bin/env bash
# The portable tier (issue 39): the build with IPYBOX_PLATFORM=portable, Darwin's logic that needs
# no Darwin (the POSIX implementations under native/*/src/posix/) built on Linux, in a build
# folder of its own; then the tests of the modules it changes and of what runs on them: core,
# process, jupyter, the kernel, the tool server, the sandbox's settings and the kernel under srt
# without a fork template (bubblewrap here), the workspace's files (the component walk alone,
# link-and-unlink renames) and the cli's registry and parent watch.
#
#   tests/portable/run.sh <source dir> <build dir>
set -euo pipefail
source_dir="$1"
build_dir="$2"
targets=(ipybox test_core test_process_unit test_process_integration test_jupyter
    test_kernel_integration test_toolserver test_sandbox_settings test_sandbox test_workspace
    test_cli_registry test_cli_parent_watch_posix)
launcher=()
if command -v ccache > /dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S "$source_dir" -B "$build_dir" "${launcher[@]}" -DCMAKE_BUILD_TYPE=Release \
    -DIPYBOX_PLATFORM=portable -DIPYBOX_BUILD_TESTS=ON -DIPYBOX_BUILD_BENCH=OFF \
    -DIPYBOX_WARNINGS_AS_ERRORS=ON > /dev/null
# One job by default: ctest runs this test in one of its slots, next to the others.
cmake --build "$build_dir" -j "${PORTABLE_JOBS:-1}" --target "${targets[@]}"
pattern='^(unit[.](test_core|test_process_unit|test_jupyter|test_toolserver|test_sandbox_settings'
pattern+='|test_workspace|test_cli_registry|test_cli_parent_watch_posix)'
pattern+='|integration[.](test_process_integration|test_kernel_integration|test_sandbox))'
ctest --test-dir "$build_dir" -R "$pattern" --output-on-failure --timeout 600
echo "portable: the tests of ${targets[*]:1} pass with IPYBOX_PLATFORM=portable"
