#!/usr/bin/env python3
"""The include-rank check (issue 29): no folder depends on one of its rank or above.

Reads the rank table of docs/architecture.md ("### Ranks"), then builds the dependency graph
between folders from two sources:
  - every #include "..." in abi/, src/, runner/ and knowledge/ (resolved as the build does:
    beside the file, then src/ and abi/; evokernel/<h> is abi/'s header wherever its copy is);
  - with --lib FOLDER=PATH (the static libraries), every symbol a library leaves undefined that
    another library defines strongly: a call into another folder's definitions.
Fails, naming each arrow, when a folder depends on a folder of its rank or above, when code
includes a data folder, or when a file lies in no ranked folder.

  include_rank.py SOURCE_DIR [--lib src/core=build/src/core/libevk_core.a ...]
"""
import argparse
import collections
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
CODE = ('.h', '.hpp', '.cpp', '.cc', '.cu')
TOPS = ('abi', 'src', 'runner', 'knowledge')


def read_ranks(root):
    """{folder: rank} from the docs' table; rank None is a data folder."""
    text = open(os.path.join(root, 'docs', 'architecture.md')).read()
    section = text.split('### Ranks', 1)
    if len(section) < 2:
        sys.exit('docs/architecture.md has no "### Ranks" table: add it back')
    ranks = {}
    for line in section[1].splitlines():
        m = re.match(r'^\|\s*(\d+|data)\s*\|(.*)\|\s*$', line)
        if m:
            for f in re.findall(r'`([^`]+)`', m.group(2)):
                ranks[f] = None if m.group(1) == 'data' else int(m.group(1))
        elif ranks and not line.startswith('|'):
            break
    return ranks


def folder_of(rel, ranks):
    """The longest ranked folder holding `rel` (a path from the root), or None."""
    best = None
    for f in ranks:
        if (rel == f or rel.startswith(f + '/')) and (best is None or len(f) > len(best)):
            best = f
    return best


def resolve(root, here, name):
    if name.startswith('evokernel/') and os.path.isfile(os.path.join(root, 'abi', name)):
        return os.path.join('abi', name)
    for base in (here, os.path.join(root, 'src'), os.path.join(root, 'abi')):
        p = os.path.join(base, name)
        if os.path.isfile(p):
            return os.path.relpath(os.path.realpath(p), root)
    return None  # a system header, or one the build generates


def include_edges(root, ranks, problems):
    edges = collections.defaultdict(list)
    for top in TOPS:
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for f in sorted(files):
                if not f.endswith(CODE):
                    continue
                rel = os.path.relpath(os.path.join(d, f), root)
                src = folder_of(rel, ranks)
                if src is None:
                    problems.append(f'{rel} lies in no ranked folder: move it into one, or rank '
                                    'its folder in docs/architecture.md')
                    continue
                for name in INCLUDE.findall(open(os.path.join(d, f), errors='replace').read()):
                    target = resolve(root, d, name)
                    dst = folder_of(target, ranks) if target else None
                    if dst and dst != src:
                        edges[(src, dst)].append(f'{rel} includes {target}')
    return edges


def symbols(lib):
    out = subprocess.run(['nm', '--format=posix', lib], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f'nm cannot read {lib}: build the libraries first ({out.stderr.strip()})')
    defined, undefined = set(), set()
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) < 2 or line.endswith(':'):
            continue
        name, kind = parts[0], parts[1]
        if kind == 'U':
            undefined.add(name)
        elif kind in 'TDBR':  # strong definitions (W, V, u: inline and template copies)
            defined.add(name)
    return defined, undefined - defined


def symbol_edges(libs):
    tables = {f: symbols(p) for f, p in libs}
    edges = collections.defaultdict(list)
    for src, (_, undefined) in tables.items():
        for dst, (defined, _) in tables.items():
            if dst != src:
                for s in sorted(undefined & defined)[:3]:
                    edges[(src, dst)].append(f'{src} calls {s} defined in {dst}')
    return edges


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('root')
    ap.add_argument('--lib', action='append', default=[], metavar='FOLDER=PATH')
    a = ap.parse_args()
    ranks = read_ranks(a.root)
    problems = []
    edges = include_edges(a.root, ranks, problems)
    libs = [l.split('=', 1) for l in a.lib]
    # A build of some targets only (the sanitizer builds) lacks some libraries: their symbol
    # arrows cannot be read, so the test reports itself skipped (77) rather than passed.
    unbuilt = [p for _, p in libs if not os.path.exists(p)]
    libs = [(f, p) for f, p in libs if os.path.exists(p)]
    for (src, dst), why in symbol_edges(libs).items():
        edges[(src, dst)] += why
    for (src, dst), why in sorted(edges.items()):
        rs, rd = ranks[src], ranks[dst]
        if rd is None and rs is not None:
            problems.append(f'{src} depends on the data folder {dst}: {why[0]}')
        elif rs is not None and rd is not None and rd >= rs:
            problems.append(f'{src} (rank {rs}) depends on {dst} (rank {rd}): {why[0]}')
        elif rs is None and rd is not None and rd > 0:
            problems.append(f'the data folder {src} depends on {dst}: {why[0]}')
    if problems:
        print('arrows that run up (docs/architecture.md, "Ranks"):', file=sys.stderr)
        for p in problems:
            print('  ' + p, file=sys.stderr)
        return 1
    print(f'{len(edges)} arrows between {len(ranks)} ranked folders, none up')
    if unbuilt:
        print('not built, their symbols unchecked: ' + ', '.join(unbuilt))
        return 77
    return 0


if __name__ == '__main__':
    sys.exit(main())
