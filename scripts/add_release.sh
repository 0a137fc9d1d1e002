#!/usr/bin/env bash
# Teach autofix a new SGLang release, in one command:
#
#   scripts/add_release.sh 0.5.24
#
# adds it to autofix/knowledge/releases.txt (the one list of releases the package,
# the scripts, the parser environment and the tests read), builds its parser
# environment, and regenerates from its own code the option table and MLA table
# (scripts/gen_knowledge.py) and the catalogue of its launch errors
# (scripts/gen_catalogue.py), and the fixers' error records from it
# (scripts/gen_records.py). Then run the tests: rules whose catalogue errors the
# new release still holds extend their range to it by themselves; a rule whose
# errors it dropped ends before it.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: scripts/add_release.sh VERSION" >&2; exit 2; }
version=$1
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "add_release: not a release: $version" >&2; exit 2; }
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
list=$repo/autofix/knowledge/releases.txt
python=${PYTHON:-$repo/.venv/bin/python}
if ! grep -qx "$version" "$list"; then
    newest=$(tail -n 1 "$list")
    "$python" - "$version" "$newest" <<'PY' || { echo "add_release: $version is not newer than the releases autofix knows" >&2; exit 2; }
import sys
new, newest = (tuple(map(int, v.split("."))) for v in sys.argv[1:])
sys.exit(0 if new > newest else 1)
PY
    echo "$version" >>"$list"
fi
bash "$repo/scripts/sglang_env.sh" "$version"
"$python" "$repo/scripts/gen_knowledge.py" "$version"
"$python" "$repo/scripts/gen_catalogue.py" "$version"
"$python" "$repo/scripts/gen_records.py"
echo "add_release: SGLang $version added; now run the tests and python tests/test_coverage.py --raise-floor"
