"""Applies a known-failures list to one client's output (used by scripts/compat/run.sh).

Usage: known.py LIST CLIENT LOG. LIST has one entry per line, "client<TAB>check name<TAB>
reason"; '#' starts a comment. A FAIL line of a listed check becomes KNOWN; a listed
check that passed ("ok NAME") becomes a failure, so a fixed problem must leave the list
(strict, like the CLI suite's list). Prints the rewritten lines and, last,
"N passed, N failed, N skipped" where skipped counts expected and known failures.
Exit status 0 if nothing failed.
"""

import sys


def main():
    lst, client, log = sys.argv[1:4]
    known = {}
    for n, line in enumerate(open(lst, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 3 or not all(p.strip() for p in parts):
            print("FAIL known-failures list line %d: want client<TAB>check<TAB>reason: %r" % (n, line))
            return 1
        if parts[0] == client:
            known[parts[1]] = parts[2]
    passed = failed = skipped = 0
    seen = set()
    for line in open(log, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("ok "):
            name = line[3:]
            if name in known:
                seen.add(name)
                failed += 1
                print("FAIL %s: passes now; remove it from the known failures (%s)" % (name, known[name]))
            else:
                passed += 1
                print(line)
        elif line.startswith("FAIL "):
            name = next((k for k in known if line.startswith("FAIL " + k + ":")), None)
            if name is not None:
                seen.add(name)
                skipped += 1
                print("KNOWN %s [%s]" % (line[5:], known[name]))
            else:
                failed += 1
                print(line)
        elif line.startswith("XFAIL "):
            skipped += 1
            print(line)
        elif line and line[0].isdigit() and " passed, " in line:
            continue  # the client's own summary, recomputed here
        else:
            print(line)
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
