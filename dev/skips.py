"""Lists every test that did not run in `make test` (skipped or canceled), with its reason, from the
JUnit XML reports of scalatest (sbt's `test-reports/`) and pytest (`--junitxml`), and fails (exit 1) on
any that dev/skips-allowed.txt does not list for its Spark line. Expected failures (pytest's xfail,
reported as skips with type pytest.xfail) ran: listed apart, never a failure.
Usage: dev/skips.py [--allowed FILE] REPORT_DIR..."""

import fnmatch
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET

ALLOWED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "skips-allowed.txt")


def line_of(report):
    """The Spark line of a report, from its path (jvm/target/spark-4.0/..., pytest-reports/spark-4.0.xml,
    pytest-reports/stores-4.0.xml), or "?"."""
    m = re.findall(r"(?:spark|stores)-(\d+\.\d+)", report)
    return m[-1] if m else "?"


def skips(dirs):
    """(report, line, classname, name, reason, xfail) of every test a report marks skipped."""
    out = []
    for d in dirs:
        for f in sorted(glob.glob(os.path.join(d, "**", "*.xml"), recursive=True)):
            try:
                root = ET.parse(f).getroot()
            except ET.ParseError:
                continue
            for case in root.iter("testcase"):
                s = case.find("skipped")
                if s is not None:
                    reason = (s.get("message") or s.text or "").strip().splitlines()
                    out.append((os.path.relpath(f), line_of(f), case.get("classname", ""), case.get("name", ""),
                                reason[0] if reason else "(no reason given)", s.get("type") == "pytest.xfail"))
    return out


def allowed(path):
    """[(lines or None for every line, pattern, reason)] from the allow-list."""
    out = []
    with open(path) as f:
        for n, raw in enumerate(f, 1):
            text = raw.strip()
            if not text or text.startswith("#"):
                continue
            parts = [p.strip() for p in text.split("|", 2)]
            if len(parts) != 3 or not all(parts):
                raise SystemExit(f"{path}:{n}: expected LINES | TEST | REASON, got {text!r}")
            lines = None if parts[0] == "*" else {x.strip() for x in parts[0].split(",")}
            out.append((lines, parts[1], parts[2]))
    return out


def match(entries, line, test):
    for lines, pattern, reason in entries:
        if (lines is None or line in lines) and fnmatch.fnmatchcase(test, pattern):
            return reason
    return None


def main(argv):
    args = argv[1:]
    path = ALLOWED
    if args[:1] == ["--allowed"]:
        path, args = args[1], args[2:]
    entries = allowed(path)
    found = skips(args)
    xfails = [s for s in found if s[5]]
    unrun = [s for s in found if not s[5]]
    unlisted = 0
    print(f"[superspark] tests not run: {len(unrun)} (allowed by {os.path.relpath(path)} unless marked UNLISTED)")
    for report, line, cls, name, reason, _ in unrun:
        why = match(entries, line, f"{cls}::{name}")
        unlisted += why is None
        print(f"  {'UNLISTED ' if why is None else ''}{line} {cls}::{name}: {reason}" + (f" [allowed: {why}]" if why else ""))
    if xfails:
        print(f"[superspark] expected failures (ran, and failed as expected): {len(xfails)}")
        for report, line, cls, name, reason, _ in xfails:
            print(f"  {line} {cls}::{name}: {reason}")
    if unlisted:
        print(f"[superspark] {unlisted} test(s) did not run and are not in {os.path.relpath(path)}: "
              "make them run, or list them there with the reason", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
