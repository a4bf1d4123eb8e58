#!/usr/bin/env bash
# The house style, checked: `check_style.sh cxx` runs clang-format over every C++ file the project
# tracks and fails on any difference; `check_style.sh python` runs black --check and flake8 over
# the project's own Python (settings in pyproject.toml and .flake8); `check_style.sh test-names`
# fails on a doctest name ctest cannot run. Generated golden modules are the generator's output
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
*)
    echo "usage: check_style.sh cxx|python|test-names" >&2
    exit 2
    ;;
esac
