#!/usr/bin/env bash
# The sanitizer tier: the unit tests of the modules that parse bytes and touch the system directly
# (core, codegen, workspace, process, jupyter, approval, mcp/jsonrpc) built with AddressSanitizer
# and UndefinedBehaviorSanitizer in a build of their own, then run. Any report fails the run
# (-fno-sanitize-recover=all: UBSan stops at the first finding; LeakSanitizer is on).
#
#   tests/sanitize/run.sh <source dir> <build dir> [target ...]
#
# The modules built on Asio and Beast (mcp transports and sessions, toolserver, app) are left to
# the `asan` preset (cmake --preset asan): their Debug build under ASan costs several times more.
set -euo pipefail
source_dir="$1"
build_dir="$2"
shift 2
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(test_core test_codegen test_workspace test_process_unit test_jupyter test_approval
        mcp_jsonrpc_tests)
fi

launcher=()
if command -v ccache > /dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S "$source_dir" -B "$build_dir" "${launcher[@]}" -DCMAKE_BUILD_TYPE=Debug \
    -DIPYBOX_SANITIZE="address;undefined" -DIPYBOX_BUILD_TESTS=ON -DIPYBOX_BUILD_BENCH=OFF \
    -DIPYBOX_WARNINGS_AS_ERRORS=ON > /dev/null
# One job: ctest runs this test in one of its slots, next to the others.
cmake --build "$build_dir" -j 1 --target "${targets[@]}"

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1:strict_string_checks=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
failed=()
for target in "${targets[@]}"; do
    binary="$(find "$build_dir/tests" -type f -name "$target" -perm -u+x | head -n 1)"
    if [ -z "$binary" ]; then
        echo "sanitize: $target was not built" >&2
        failed+=("$target")
        continue
    fi
    # Each test binary runs where ctest would run it, its own folder.
    if (cd "$(dirname "$binary")" && "./$target" --no-version --minimal); then
        echo "sanitize: $target clean"
    else
        failed+=("$target")
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "sanitize: findings or failures in: ${failed[*]}" >&2
    exit 1
fi
echo "sanitize: ${#targets[@]} unit test programs clean under ASan and UBSan"
