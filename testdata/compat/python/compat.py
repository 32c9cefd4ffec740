"""Shared helpers for the Python compat clients (run with Debian's /usr/bin/python3).

Connection comes from COMPAT_HOST, COMPAT_PORT, COMPAT_USER, COMPAT_PASSWORD;
COMPAT_SERVER is "sqlgw" or "mariadb". Every check prints "ok NAME", "FAIL NAME: why"
or "XFAIL NAME: why"; finish() prints "N passed, N failed, N skipped" (skipped counts
the expected failures) and exits non-zero if anything failed.
"""

import os
import re
import sys
import traceback

HOST = os.environ.get("COMPAT_HOST", "127.0.0.1")
PORT = int(os.environ["COMPAT_PORT"])
USER = os.environ.get("COMPAT_USER", "root")
PASSWORD = os.environ.get("COMPAT_PASSWORD", "")
SERVER = os.environ.get("COMPAT_SERVER", "")

CUSTOMERS = [
    ("eu", 1, "O'Brien", "it's fragile"),
    ("eu", 2, "Smith", None),
    ("us", 1, "Jones", "plain"),
]
ORDERS = [
    ("eu", 1, 1, 10, "1.50"),
    ("eu", 1, 2, 20, "2.25"),
    ("eu", 2, 1, 5, None),
    ("us", 1, 1, 7, "3.00"),
]

_NOT_SUPPORTED = re.compile(r"\b1235\b|not (yet )?supported", re.I)


class Checker:
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.xfailed = 0
        sys.excepthook = self._abort

    def _abort(self, typ, value, tb):
        """An uncaught client error ends the script as one more failure, with the summary."""
        traceback.print_exception(typ, value, tb)
        self.fail("script aborted", "%s: %s" % (typ.__name__, value))
        print("%d passed, %d failed, %d skipped" % (self.passed, self.failed, self.xfailed), flush=True)
        sys.stdout.flush()
        os._exit(1)

    def ok(self, name):
        self.passed += 1
        print("ok", name, flush=True)

    def fail(self, name, why):
        self.failed += 1
        print("FAIL %s: %s" % (name, " // ".join(str(why).splitlines())), flush=True)

    def eq(self, name, want, got):
        if want == got:
            self.ok(name)
        else:
            self.fail(name, "want %r, got %r" % (want, got))

    def eqf(self, name, want, fn):
        """Compares fn() with want; an exception from fn fails only this check."""
        try:
            got = fn()
        except Exception as e:  # noqa: BLE001 - report every client error
            self.fail(name, "%s: %s" % (type(e).__name__, e))
            return None
        self.eq(name, want, got)
        return got

    def true(self, name, cond, why=""):
        if cond:
            self.ok(name)
        else:
            self.fail(name, why or "condition false")

    def run(self, name, fn):
        """Runs fn(); an exception is a failure. Returns fn's result or None."""
        try:
            res = fn()
        except Exception as e:  # noqa: BLE001 - report every client error
            self.fail(name, "%s: %s" % (type(e).__name__, e))
            if os.environ.get("COMPAT_VERBOSE"):
                traceback.print_exc()
            return None
        self.ok(name)
        return res

    def index(self, name, fn):
        """Runs fn() that creates a secondary index. On sqlgw only, an error saying the
        feature is not supported yet is an expected failure; any other error fails.
        Returns True if the index exists afterwards."""
        try:
            fn()
        except Exception as e:  # noqa: BLE001
            if SERVER == "sqlgw" and _NOT_SUPPORTED.search(str(e)):
                self.xfailed += 1
                print("XFAIL %s (secondary indexes not supported yet): %s" % (name, " // ".join(str(e).splitlines())), flush=True)
            else:
                self.fail(name, "%s: %s" % (type(e).__name__, e))
            return False
        self.ok(name)
        return True

    def finish(self):
        print("%d passed, %d failed, %d skipped" % (self.passed, self.failed, self.xfailed), flush=True)
        sys.exit(1 if self.failed else 0)
