#!/usr/bin/env bash
# The house style, checked: `check_style.sh cxx` runs clang-format over every C++ file the project
# tracks and fails on any difference; `check_style.sh python` runs black --check and flake8 over
# the project's own Python (settings in pyproject.toml and .flake8); `check_style.sh test-names`
# fails on a doctest name ctest cannot run; `check_style.sh one-runtime` fails on std::async or a
# detached thread in native/. Generated golden modules are the generator's output
# and are left out. A missing tool fails the test; it never skips.
set -euo pipefail
cd "$(dirname "$0")/../.."

tracked() {
    if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
        git ls-files -- "$@"
    else
        find native tests bench plugins gentools-template -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.py' \) | sort
    fi
}

case "${1:-}" in
cxx)
    mapfile -t files < <(tracked '*.cpp' '*.hpp' | grep -E '\.(cpp|hpp)$')
    clang-format --dry-run --Werror "${files[@]}"
    echo "clang-format: ${#files[@]} files match .clang-format"
    ;;
python)
    mapfile -t files < <(tracked '*.py' | grep -E '\.py$' | grep -v '^tests/golden/')
    black --quiet --check "${files[@]}"
    flake8 "${files[@]}"
    echo "black, flake8: ${#files[@]} files clean"
    ;;
test-names)
    # ctest takes a test's name as a CMake list: a ';' in a doctest name cuts it, the filter then
    # matches nothing, and the test "passes" without running.
    mapfile -t files < <(tracked '*.cpp' | grep -E '^tests/.*\.cpp$')
    # -z reads a file whole: a fixture's test name often starts on the line after its fixture.
    if grep -lPz 'TEST_CASE(_FIXTURE\([^,"]*,\s*|\()"[^"]*;' "${files[@]}"; then
        echo "test names in the files above contain ';', which ctest cannot run" >&2
        exit 1
    fi
    echo "test names: none of ${#files[@]} files has a ';' in a test name"
    ;;
one-runtime)
    # STYLE.md rule 12: one Asio loop carries the work; signals and timers join it. A detached
    # thread or std::async in native/ is work beside that loop, with nobody to stop or join it.
    # Allowed only in the files listed here, each with its reason:
    #   cli/{darwin,posix}/parent_watch.cpp  `ipybox sdk --parent-pid` before the server's loop
    #       exists: one thread for the life of the process that waits for the parent's exit and
    #       only sends SIGTERM, which then joins the loop as any signal does (as the kernel's
    #       PR_SET_PDEATHSIG does on Linux); it does no work beside the loop.
    allowed=(native/cli/darwin/parent_watch.cpp native/cli/posix/parent_watch.cpp)
    mapfile -t files < <(tracked 'native/*.cpp' 'native/*.hpp' | grep -E '\.(cpp|hpp)$')
    found=""
    for file in "${files[@]}"; do
        [[ " ${allowed[*]} " == *" $file "* ]] && continue
        hits=$(grep -nHE 'std::async|\.detach\(\)' "$file" | grep -vE '^[^:]+:[0-9]+:\s*//' || true)
        if [[ -n "$hits" ]]; then found+="$hits"$'\n'; fi
    done
    if [[ -n "$found" ]]; then
        echo "$found" >&2
        echo "std::async or a detached thread in native/: put the work on the loop (STYLE.md 12)" >&2
        exit 1
    fi
    echo "one runtime: no std::async or detached thread in ${#files[@]} files of native/"
    ;;
*)
    echo "usage: check_style.sh cxx|python|test-names|one-runtime" >&2
    exit 2
    ;;
esac
