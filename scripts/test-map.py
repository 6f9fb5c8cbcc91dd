#!/usr/bin/env python3
"""Which test covers each main class: prints the Markdown table of docs/testing.md ("Which test covers which class").

A class is covered by the test named after it (FooTest, FooIT), else by the tests that name it, else, in a front
door's or connector's package, by the process-level tests that drive it (THROUGH_PROCESS), else by the tests of the
nearest classes that use it (found through the main sources' references, breadth first). Classes without logic
(no branch, loop, return or throw: records, marker interfaces, constants) are left out.
Usage: python3 scripts/test-map.py > /tmp/map.md   (from the repository's root)
"""
import collections
import glob
import os
import re
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BASE = "cn/agentao/agent/"
# The process-level tests that drive each front door or connector through a running agent: they name no class, so
# a class of these packages without a test of its own is covered by them.
THROUGH_PROCESS = {
    "cli": ["HeadlessIT", "LoginIT", "AcpStartJarsIT"],
    "door/acp": ["AcpProtocolIT", "ConformanceIT"],
    "door/acp/protocol": ["AcpProtocolIT", "ConformanceIT"],
    "door/a2a": ["A2aSdkClientIT", "A2aTwoInstancesIT"],
    "door/agora": ["AgoraDoorIT", "AgoraToolsIT"],
    "door/terminal": ["ChatIT", "HeadlessIT"],
    "connect/a2a": ["A2aRemoteAgentIT"],
    "connect/smcp": ["SmcpIT", "SmcpOfficeIT"],
    "connect/mcp": ["McpIT", "ServerLifecycleIT"],
}


def strip(src):
    src = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
    return re.sub(r"(?m)^\s*//.*", "", src)


def sources(pattern):
    out = {}
    for f in sorted(glob.glob(os.path.join(ROOT, pattern), recursive=True)):
        name = os.path.basename(f)[:-5]
        rel = os.path.relpath(f, ROOT)
        pkg = os.path.dirname(rel).split(BASE, 1)[-1] if BASE in rel else ""
        out.setdefault(name, (pkg, strip(open(f, encoding="utf-8").read())))
    return out


def main():
    main_src = sources("src/main/java/**/*.java")
    main_src.update({k: v for k, v in sources("src/main/java22/**/*.java").items() if k not in main_src})
    tests = {n: s for n, (_, s) in sources("src/test/java/**/*.java").items()
             if n.endswith(("Test", "IT", "Contract"))}
    ident = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
    test_words = {t: collections.Counter(ident.findall(s)) for t, s in tests.items()}
    test_pkg = {n: p for n, (p, _) in sources("src/test/java/**/*.java").items()}

    def tests_naming(n, pkg=None):
        c = [(k[n], test_pkg.get(t) == pkg, t) for t, k in test_words.items() if k[n]]
        return [t for _, _, t in sorted(c, key=lambda x: (-x[1], -x[0], x[2]))][:2]

    users = collections.defaultdict(set)  # class -> main classes that refer to it
    for n, (_, s) in main_src.items():
        for m in set(ident.findall(s)) & main_src.keys():
            if m != n:
                users[m].add(n)

    rows = []
    for n, (pkg, s) in sorted(main_src.items(), key=lambda kv: (kv[1][0], kv[0])):
        if len(re.findall(r"\b(if|for|while|switch|return|throw|try)\b", s)) < 3:
            continue
        named = [t for t in (n + "Test", n + "IT") if t in tests]
        if named:
            rows.append((pkg, n, ", ".join(f"`{t}`" for t in named)))
            continue
        direct = tests_naming(n, pkg)
        if direct:
            rows.append((pkg, n, "tested by " + ", ".join(f"`{t}`" for t in direct)))
            continue
        if pkg in THROUGH_PROCESS:
            rows.append((pkg, n, "through the process: " + ", ".join(f"`{t}`" for t in THROUGH_PROCESS[pkg])))
            continue
        seen, frontier, found = {n}, [n], None
        while frontier and not found:
            nxt = []
            for c in frontier:
                for u in sorted(users[c], key=lambda u: (main_src[u][0] != pkg, u)):
                    if u in seen:
                        continue
                    seen.add(u)
                    nxt.append(u)
                    t = [x for x in (u + "Test", u + "IT") if x in tests] or tests_naming(u, pkg)
                    if t and not found:
                        found = (u, t)
            frontier = nxt
        if found:
            rows.append((pkg, n, f"through `{found[0]}`: " + ", ".join(f"`{t}`" for t in found[1][:2])))
        else:
            rows.append((pkg, n, "through the process-level tests (`*IT`) only"))
    print("| package | class | test |")
    print("|---|---|---|")
    for pkg, n, t in rows:
        print(f"| `{pkg}` | `{n}` | {t} |")
    print(f"{len(rows)} classes", file=sys.stderr)


if __name__ == "__main__":
    main()
