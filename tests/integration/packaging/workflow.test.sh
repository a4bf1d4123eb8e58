#!/usr/bin/env bash
# The GitHub Actions workflows (.github/workflows/*.yml) pass actionlint (from the Go module proxy,
# packaging/tools.sh), and actionlint can fail here: a copy with an unknown job key is refused.
set -uo pipefail
source "$(dirname "$0")/checks.sh"
source "$ROOT/packaging/tools.sh"
ensure_actionlint > "$SCRATCH/last" 2>&1 || { cat "$SCRATCH/last"; exit 1; }

(cd "$ROOT" && "$ACTIONLINT" -no-color .github/workflows/*.yml) > "$SCRATCH/last" 2>&1
check "actionlint passes on .github/workflows" test ! -s "$SCRATCH/last"
mkdir -p "$SCRATCH/copy/.github/workflows"
sed 's/^    runs-on: \${{ matrix.runner }}$/    runs-on: ${{ matrix.runner }}\n    runs_on_typo: true/' \
    "$ROOT/.github/workflows/release.yml" > "$SCRATCH/copy/.github/workflows/release.yml"
(cd "$SCRATCH/copy" && "$ACTIONLINT" -no-color .github/workflows/release.yml) > "$SCRATCH/last" 2>&1
check "control: a workflow with an unknown job key fails actionlint" grep -q "runs_on_typo" "$SCRATCH/last"
check "release.yml runs on v* tags and publishes to PyPI by trusted publishing (id-token, no token)" \
    eval 'grep -q "tags: \[\"v\*\"\]" "$ROOT/.github/workflows/release.yml" && grep -q "id-token: write" "$ROOT/.github/workflows/release.yml" && ! grep -qi "password:\|PYPI_TOKEN\|api-token" "$ROOT/.github/workflows/release.yml"'
finish
