#!/usr/bin/env bash
# Writes the places of a new rule from the templates in scripts/new-rule/, as
# clang-tidy's add_new_check.py does:
#   rules/<Name>Check.{h,cpp}   the rule pair (it builds, and reports nothing)
#   rules/RuleRegistry.cpp      its include and its registry line
#   docs/rules/<id>.md          its docs page (the lead is its SARIF description)
#   test-inputs/<name>.cpp      its test-input, whose positive case fails
#                               until the rule reports it
# The rule lists of README.md and docs/rules/README.md come from the built
# rule itself: scripts/update-rule-list.sh after the next build.
# A replay scenario (runtime/lib/scenarios/) is the optional fifth place; see
# docs/contributing.md.
#
#   scripts/new-rule.sh torch-foo-bar ["one-line summary"]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
templates=$root/scripts/new-rule
id=${1:-}
summary=${2:-TODO one line, lower-case, no final period}
if [[ ! $id =~ ^torch-[a-z0-9]+(-[a-z0-9]+)*$ ]]; then
  echo "usage: scripts/new-rule.sh torch-<words-with-dashes> [summary]" >&2
  exit 2
fi
words=${id#torch-}
name=$(echo "$words" | sed -E 's/(^|-)([a-z0-9])/\U\2/g')
class=${name}Check
program=${words//-/_}
guard=$(echo "$class" | tr '[:lower:]' '[:upper:]')

for path in "rules/$class.h" "rules/$class.cpp" "docs/rules/$id.md" \
            "test-inputs/$program.cpp"; do
  if [[ -e $root/$path ]]; then
    echo "new-rule: $path exists; nothing was written" >&2
    exit 1
  fi
done
if grep -q "\"$id\"" "$root"/rules/*.cpp; then
  echo "new-rule: a rule '$id' is registered already" >&2
  exit 1
fi

fill() {
  sed -e "s|@ID@|$id|g" -e "s|@NAME@|$name|g" -e "s|@CLASS@|$class|g" \
      -e "s|@GUARD@|$guard|g" -e "s|@PROGRAM@|$program|g" \
      -e "s|@SUMMARY@|$summary|g" "$templates/$1" >"$root/$2"
  echo "new-rule: wrote $2"
}
fill Check.h.in "rules/$class.h"
fill Check.cpp.in "rules/$class.cpp"
fill docs.md.in "docs/rules/$id.md"
fill test-input.cpp.in "test-inputs/$program.cpp"

python3 - "$root" "$class" "$id" "$summary" <<'PY'
import re, sys, pathlib
root, cls, rule_id, summary = pathlib.Path(sys.argv[1]), *sys.argv[2:]
registry = root / "rules/RuleRegistry.cpp"
text = registry.read_text()
includes = re.findall(r'^#include "rules/\w+Check\.h"\n', text, re.M)
line = f'#include "rules/{cls}.h"\n'
after = [i for i in includes if i > line]
if after:
    text = text.replace(after[0], line + after[0], 1)
else:
    text = text.replace(includes[-1], includes[-1] + line, 1)
end = text.index("  };\n  // clang-format on")
text = text[:end] + f"      entry<{cls}>(),\n" + text[end:]
registry.write_text(text)
print("new-rule: registered in rules/RuleRegistry.cpp")
PY
cat <<MSG
new-rule: next, fill in the TODOs; then
  scripts/check-rule.sh $id      # fails until the rule reports its case
  scripts/update-rule-list.sh    # its row in the README's rule list
  ctest --test-dir build         # the whole specification
MSG
