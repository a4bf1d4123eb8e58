#!/usr/bin/env bash
# Saved code actions in real ipybox kernels: one `ipybox run` creates an action with new_gentool
# and fills it in; a second `ipybox run` (a fresh kernel) imports it, checks that importing the
# interface did not import impl.py, and runs it. About 5 seconds.
#
#   tests/integration/plugin/gentools_kernel.test.sh <path to the ipybox binary>
set -uo pipefail
IPYBOX="${1:-${IPYBOX_BIN:-}}"
if [ -z "$IPYBOX" ] || [ ! -x "$IPYBOX" ]; then
    echo "FAIL: pass the ipybox binary as the first argument (got '${IPYBOX}')" >&2
    exit 1
fi
WORKSPACE="$(mktemp -d /tmp/ipybox-gentools-kernel-XXXXXX)"
trap 'rm -rf "$WORKSPACE"' EXIT
passed=0
failed=0
check() {  # check <description> <output file> <expected line>
    if grep -qxF -- "$3" "$2"; then
        passed=$((passed + 1))
        echo "ok - $1"
    else
        failed=$((failed + 1))
        echo "not ok - $1: no line '$3' in:"
        sed 's/^/    /' "$2"
    fi
}

"$IPYBOX" run --workspace "$WORKSPACE" --timeout 60 > "$WORKSPACE/create.out" 2>&1 -c '
from ipybox_runtime.gentools import new_gentool
package = new_gentool("text", "word_stats")
print("created", package.relative_to(package.parents[2]))
(package / "api.py").write_text("""\"\"\"Counts words and the longest word of a text.\"\"\"

from ipybox_runtime.models import Field, ToolModel

__all__ = ["WordStats", "run"]


class WordStats(ToolModel):
    words: int = Field(..., description="Number of words")
    longest: str = Field(..., description="The longest word")


def run(text: str) -> WordStats:
    \"\"\"Statistics of the words of text.\"\"\"
    from . import impl

    return impl.run(text=text)
""")
(package / "impl.py").write_text("""from .api import WordStats


def run(text: str) -> WordStats:
    words = text.split()
    return WordStats(words=len(words), longest=max(words, key=len))
""")
try:
    new_gentool("text", "word_stats")
except FileExistsError as error:
    print("second creation refused:", type(error).__name__)
'
check "new_gentool works in a kernel (its template found next to the runtime)" "$WORKSPACE/create.out" "created gentools/text/word_stats"
check "creating the same action again is refused" "$WORKSPACE/create.out" "second creation refused: FileExistsError"

"$IPYBOX" run --workspace "$WORKSPACE" --timeout 60 > "$WORKSPACE/reuse.out" 2>&1 -c '
import sys
from gentools.text.word_stats import WordStats, run
print("impl after import:", "gentools.text.word_stats.impl" in sys.modules)
stats = run("a fresh kernel imports saved actions")
print("stats:", stats.words, stats.longest)
print("impl after run:", "gentools.text.word_stats.impl" in sys.modules)
from ipybox_runtime.gentools import catalog
print(catalog())
'
check "a fresh kernel imports the saved action without impl.py" "$WORKSPACE/reuse.out" "impl after import: False"
check "the saved action runs in the fresh kernel" "$WORKSPACE/reuse.out" "stats: 6 imports"
check "impl.py is imported when run() is called" "$WORKSPACE/reuse.out" "impl after run: True"
check "catalog() lists the saved action with where it comes from and its summary" "$WORKSPACE/reuse.out" \
    "gentools.text.word_stats  (project) Counts words and the longest word of a text."

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
