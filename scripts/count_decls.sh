#!/usr/bin/env bash
# What a public header brings into a program: the project headers a
# translation unit including only that header reaches, and the declarations
# it sees in namespace rw (its nested namespaces included, rw::detail and any
# other `detail` namespace excluded).
#
#   scripts/count_decls.sh [--root DIR] [HEADER...]    (default: the four public headers)
#   RW_LIST_DECLS=1 scripts/count_decls.sh rw/rw.hpp   (and each declaration, on stderr)
#
# Declarations are counted on clang-14's AST (-Xclang -ast-dump, read line by
# line: the JSON form of a TU with Boost and Eigen is gigabytes): the
# functions, function templates, classes, class templates, enums, type
# aliases, typedefs and variables declared directly in a namespace, each
# counted once however often it is redeclared (a function by its name and
# type). Members and implicit declarations are not counted.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
if [[ "${1:-}" == "--root" ]]; then
  root="$(cd "$2" && pwd)"
  shift 2
fi
headers=("$@")
if [[ ${#headers[@]} -eq 0 ]]; then
  headers=(rw/rw.hpp rw/rewrite.hpp rw/rules.hpp rw/kanren.hpp)
fi
cd "$(mktemp -d)"  # so that "rw/…" is found through -I only
flags=(-std=c++20 -I"$root" -isystem /usr/include/eigen3 -DNDEBUG -DBOOST_ALL_NO_LIB)

printf '%-18s %8s %13s\n' header headers declarations
for h in "${headers[@]}"; do
  if [[ ! -f "$root/$h" ]]; then
    printf '%-18s %8s %13s\n' "$h" - -
    continue
  fi
  tu="#include \"$h\""
  nheaders=$(echo "$tu" | g++ "${flags[@]}" -x c++ -M -MT x - |
             tr ' \\' '\n\n' | grep -c "^$root/.*\.hpp$" || true)
  ndecls=$(echo "$tu" | clang++-14 "${flags[@]}" -x c++ -fsyntax-only -Xclang -ast-dump \
             -fno-color-diagnostics - | python3 -c '
import os, re, sys
kinds = {"FunctionDecl", "FunctionTemplateDecl", "CXXRecordDecl", "ClassTemplateDecl",
         "EnumDecl", "TypeAliasDecl", "TypeAliasTemplateDecl", "TypedefDecl", "VarDecl"}
stack = []  # (depth, namespace name or None for a non-namespace node)
seen = set()
node = re.compile(r"^([ |`-]*)(\w+) 0x[0-9a-f]+ (.*)$")
for line in sys.stdin:
    m = node.match(line)
    if not m or m.group(2) == "TranslationUnitDecl":
        continue
    depth, kind, rest = len(m.group(1)), m.group(2), m.group(3)
    while stack and stack[-1][0] >= depth:
        stack.pop()
    names = [n for _, n in stack]
    inside = len(names) > 0 and names[0] == "rw" and all(n not in (None, "detail", "") for n in names)
    # What follows the source range and location: the name, and a function'"'"'s type.
    body = re.sub(r"^((prev|parent) 0x[0-9a-f]+ )*<[^<>]*(<[^<>]*>[^<>]*)*> ?", "", rest)
    body = re.sub(r"^((col|line):[0-9:]+|[^ ]+:[0-9]+:[0-9]+) ?", "", body).strip()
    if kind == "NamespaceDecl":
        stack.append((depth, body.split()[0] if body else ""))
        continue
    stack.append((depth, None))
    if not inside or kind not in kinds or re.match(r"(implicit|used|referenced)* ?implicit ", body):
        continue
    body = re.sub(r"^(used |referenced |invalid |constexpr )+", "", body)
    if kind == "CXXRecordDecl":
        body = body.replace(" definition", "")
    key = (kind if kind != "CXXRecordDecl" else "record", "::".join(names), body)
    seen.add(key)
if os.environ.get("RW_LIST_DECLS"):
    for k in sorted(seen):
        print(*k, sep="\t", file=sys.stderr)
print(len(seen))
')
  printf '%-18s %8s %13s\n' "$h" "$nheaders" "$ndecls"
done
