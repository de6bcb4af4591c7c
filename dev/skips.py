"""Prints every test that did not run in `make test` (skipped or canceled), with its reason,
from the JUnit XML reports of scalatest (sbt's `test-reports/`) and pytest (`--junitxml`).
Usage: dev/skips.py REPORT_DIR... ; exits 0 (the runners have already passed or failed)."""

import glob
import os
import sys
import xml.etree.ElementTree as ET


def skips(dirs):
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
                    out.append((os.path.basename(f), case.get("classname", ""), case.get("name", ""),
                                reason[0] if reason else "(no reason given)"))
    return out


def main(argv):
    found = skips(argv[1:])
    print(f"[superspark] tests not run: {len(found)}")
    for report, cls, name, reason in found:
        print(f"  {report}: {cls}::{name}: {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
