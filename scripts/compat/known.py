"""Applies a known-failures list to one client's output (used by scripts/compat/run.sh).

Usage: known.py LIST CLIENT LOG. LIST has one entry per line, "client<TAB>check name<TAB>
reason"; "client@store" limits an entry to one store kind ($COMPAT_SQLGW_STORE up to its
first ':', e.g. azurite); '#' starts a comment; a reason may not start with TODO. A FAIL line of a listed check becomes KNOWN; a listed
check that passed ("ok NAME") becomes a failure, so a fixed problem must leave the list
(strict, like the CLI suite's list). Prints the rewritten lines and, last,
"N passed, N failed, N skipped" where skipped counts expected and known failures.
Exit status 0 if nothing failed.

known.py --suggest LIST LOGDIR prints what to change in LIST after a run without the
list (LOGDIR = the run's logs directory, one CLIENT/client.log each): entries to delete
(the check passed) and new entries for unlisted failures, with the reason "TODO" to be
replaced by a real one before the list is accepted.
"""

import os
import sys


def suggest(lst, logdir):
    listed = {}
    for line in open(lst, encoding="utf-8"):
        parts = line.rstrip("\n").split("\t")
        if len(parts) == 3 and not line.lstrip().startswith("#"):
            listed[(parts[0], parts[1])] = parts[2]
    for client in sorted(os.listdir(logdir)):
        log = os.path.join(logdir, client, "client.raw.log")
        if not os.path.exists(log):
            log = os.path.join(logdir, client, "client.log")
        if not os.path.exists(log):
            continue
        lines = [l.rstrip("\n") for l in open(log, encoding="utf-8", errors="replace")]
        oks = {l[3:] for l in lines if l.startswith("ok ")}
        for (c, name), why in sorted(listed.items()):
            if c.split("@")[0] == client and name in oks:
                print("delete\t%s\t%s\t%s" % (c, name, why))
        for l in lines:
            if l.startswith("FAIL ") and not any(c.split("@")[0] == client and l.startswith("FAIL " + n + ":") for c, n in listed):
                name = l[5:].split(": ", 1)[0]
                print("add\t%s\t%s\tTODO (%s)" % (client, name, l[5:][:200]))
    return 0


def main():
    if sys.argv[1] == "--suggest":
        return suggest(sys.argv[2], sys.argv[3])
    lst, client, log = sys.argv[1:4]
    store = os.environ.get("COMPAT_SQLGW_STORE", "memory:").split(":")[0]
    known = {}
    for n, line in enumerate(open(lst, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != 3 or not all(p.strip() for p in parts) or parts[2].startswith("TODO"):
            print("FAIL known-failures list line %d: want client<TAB>check<TAB>reason: %r" % (n, line))
            return 1
        # "client@store" limits an entry to one store kind (memory, pebble, azurite, azure).
        name, _, only = parts[0].partition("@")
        if name == client and (not only or only == store):
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
