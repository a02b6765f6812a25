#!/usr/bin/env python3
"""Function lengths in C++ sources: the house rule is that none exceeds 120 lines.

    scripts/function_lengths.py [--max N] [--top K] [--allow PATH ...] PATH...
    scripts/function_lengths.py --selftest

Prints every function longer than --max lines (signature to closing brace), longest first, and
exits 1 when there is one outside the --allow paths (folders or files: listed, not counted,
for code another change owns). --top K lists the K longest whatever their length.

A brace counter, not a parser: comments, string and character literals (raw strings too) and
preprocessor lines are blanked first; a `{` opens a function body when the text before it (since
the last `;`, `{` or `}`) looks like a declarator: a parameter list closed by `)`, optionally
followed by qualifiers, a trailing return type or a constructor's initialiser list, and not a
control statement. Lambdas and nested classes count as part of the function that holds them.
"""
import argparse
import os
import re
import sys

EXTS = (".cpp", ".cc", ".h", ".hpp", ".cu")
CONTROL = re.compile(r"\b(if|for|while|switch|catch|return|else|do|sizeof|decltype)\s*$")
INIT = re.compile(r"\)\s*:\s[^;]*$")  # a constructor's initialiser list, to the end
SCOPE = re.compile(r"\b(namespace|class|struct|union|enum)\b[^()]*$|extern\s+\"C\"\s*$")


def blank(text):
    """Comments, literals and preprocessor lines replaced by spaces; newlines kept."""
    out, i, n = [], 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#":  # a preprocessor line, with its continuations
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append(" \n")
                    i += 2
                    continue
                out.append(" ")
                i += 1
            continue
        if c in " \t":
            out.append(c)
            i += 1
            continue
        line_start = c == "\n"
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                out.append(" ")
                i += 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = ")" + m.group(1) + '"'
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append('""' + re.sub(r"[^\n]", " ", text[i + 2:j]))
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # a digit separator: 1'000
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + " " * (j - i - 2) + c if j - i >= 2 else " ")
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def name_of(head):
    """The function's name from the text before its body."""
    m = re.search(r"([~\w:<>]+)\s*\(", head)
    return m.group(1) if m else head.strip()[:40]


def is_function(head):
    h = " ".join(head.split())
    if not h or "(" not in h or SCOPE.search(h) or "=" in h.split("(")[0]:
        return False
    # Drop a constructor's initialiser list: ") : a_(x), b_(y)" ends in ")" too.
    h = re.sub(r"\)\s*:\s[^;]*$", ")", h)
    h = re.sub(r"\s*->\s*[\w:<>,\s*&]+$", "", h)  # trailing return type
    h = re.sub(r"(\s+(const|noexcept|override|final|mutable|volatile|&|&&))+$", "", h)
    h = re.sub(r"\s*noexcept\s*\([^)]*\)$", "", h)
    if not h.endswith(")"):
        return False
    if INIT.search(" ".join(head.split())) and not " ".join(head.split()).endswith((")", "}")):
        return False  # a braced member initialiser, not the body
    depth, k = 0, len(h) - 1  # the matching "(" of the last ")"
    while k >= 0:
        depth += {")": 1, "(": -1}.get(h[k], 0)
        if depth == 0:
            break
        k -= 1
    before = h[:k].rstrip()
    return bool(before) and not CONTROL.search(before) and not before.endswith(("]", "=", ",", "("))


def functions(path):
    text = blank(open(path, encoding="utf-8", errors="replace").read())
    stack, head_start, out = [], 0, []  # stack: (is_function, start line) per open brace
    line = 1
    in_function = 0
    for i, c in enumerate(text):
        if c == "\n":
            line += 1
        elif c == "{":
            head = text[head_start:i]
            fn = in_function == 0 and is_function(head)
            # `b_{2}` in a constructor's initialiser list: the head goes on past its `}`.
            init = in_function == 0 and not fn and bool(INIT.search(" ".join(head.split())))
            start = line
            if fn:
                first = len(head) - len(head.lstrip())
                start = line - head[first:].count("\n")
                in_function += 1
            stack.append((fn, start, name_of(head) if fn else "", init))
            if not init:
                head_start = i + 1
        elif c == "}":
            init = False
            if stack:
                fn, start, name, init = stack.pop()
                if fn:
                    in_function -= 1
                    out.append((line - start + 1, path, start, name))
            if not init:
                head_start = i + 1
        elif c == ";":
            head_start = i + 1
    return out


def selftest():
    """The counter on constructs that fool a naive brace count; returns the failures."""
    import tempfile
    body = "\n".join(f'  s += "{{ {i} }}";  // }} {{' for i in range(125))
    src = f"""#include <string>
namespace evk {{
struct S {{
  int short_one() const {{ return 1; }}
}};
std::string long_one(int x) {{
  std::string s = R"x(}}}}}})x";
  auto f = [&](int y) {{ return y + '}}'; }};
{body}
  if (x) {{ s += "a"; }}
  return s;
}}
S::S() : a_(1), b_{{2}} {{
}}
}}  // namespace evk
"""
    with tempfile.NamedTemporaryFile("w", suffix=".cpp", delete=False) as f:
        f.write(src)
    got = {name: n for n, _, _, name in functions(f.name)}
    os.unlink(f.name)
    want = {"short_one": 1, "long_one": 131, "S::S": 2}
    return [f"{k}: counted {got.get(k)}, want {v}" for k, v in want.items() if got.get(k) != v]


def main():
    if sys.argv[1:] == ["--selftest"]:
        bad = selftest()
        for b in bad:
            print(b, file=sys.stderr)
        return 1 if bad else 0
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--max", type=int, default=120)
    ap.add_argument("--top", type=int, default=0)
    ap.add_argument("--allow", action="append", default=[])
    a = ap.parse_args()
    found = []
    for p in a.paths:
        files = [p] if os.path.isfile(p) else [
            os.path.join(d, f) for d, _, fs in os.walk(p) for f in fs if f.endswith(EXTS)]
        for f in sorted(files):
            found += functions(f)
    found.sort(key=lambda x: (-x[0], x[1], x[2]))
    def allowed(f):
        f = os.path.normpath(f)
        return any(f == os.path.normpath(d) or f.startswith(os.path.normpath(d) + os.sep)
                   for d in a.allow)

    over = [x for x in found if x[0] > a.max]
    bad = [x for x in over if not allowed(x[1])]
    for n, f, l, name in found[: a.top] if a.top else over:
        tag = " (allowed: owned elsewhere)" if n > a.max and allowed(f) else ""
        print(f"{n:5d}  {f}:{l}  {name}{tag}")
    if bad:
        print(f"{len(bad)} function(s) over {a.max} lines: split them along their ideas", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
