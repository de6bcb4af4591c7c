"""The footer tools' command line: ``superspark-footer`` (a console script) or
``python -m superspark.footer``; see ``superspark.footer`` for the commands and exit codes."""

from __future__ import annotations

import argparse
import json
import sys
from typing import List, Optional, Sequence

from superspark import footer as api
from superspark.footer import _launcher

__all__ = ["main"]


def _run_table_command(args) -> int:
    """``add-table`` / ``strip-table`` / ``migrate-table``: a Spark session (``--master``), the job with its
    progress bar, one line per file that was not done or already, and a summary."""
    import superspark

    hadoop = {f"spark.hadoop.{k}": v for k, v in (kv.split("=", 1) for kv in args.hadoop_conf)}
    spark = superspark.session("superspark-footer-table", master=args.master,
                               **{"spark.ui.showConsoleProgress": "false", **hadoop})
    command = args.command[:-len("-table")]
    try:
        df = api._table_job(spark, args.path, command, getattr(args, "to", None), progress=not args.json)
    except Exception as e:  # Spark's errors for a Delta table or a missing path: the message, exit 1
        if type(e).__module__.startswith(("pyspark", "py4j")):
            print(f"error: {e}", file=sys.stderr)
            return 1
        raise
    rows = [r.asDict() for r in df.collect()]
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        for r in rows:
            if r["status"] not in ("done", "already"):
                print(f"{r['status']} {r['path']}: {r['reason']}")
        counts = {s: sum(r["status"] == s for r in rows) for s in ("done", "already", "refused", "failed")}
        print(", ".join(f"{n:,} {s}" for s, n in counts.items()) + f" ({len(rows):,} files)")
    return 1 if any(r["status"] in ("refused", "failed") for r in rows) else 0



_UNSAFE_HELP = ("UNSAFE: write the new footer into the file itself (faster, no temporary copy). Not crash-safe: "
                "a kill, crash, out-of-memory kill or Ctrl-C during the write leaves an unreadable file that no "
                "reader can open again. Local files only. Without it the file is replaced crash-safely.")

_FAILED = {"error", "refused", "corrupt", "mismatch", "different"}


def _size(n) -> str:
    return "-" if n is None else f"{n:,} B"


def _print_inspect(r: dict) -> None:
    status = r["status"]
    if status == "error":
        print(f"{r['path']}: error: {r.get('message')}")
        return
    head = f"{r['path']}: {r.get('form', '?')} form, extension {status}"
    if r.get("uuid"):
        head += f" (uuid {r['uuid']})"
    print(head)
    print(f"  footer {_size(r.get('footer_bytes'))}: thrift {_size(r.get('thrift_bytes'))}, "
          f"flatbuffer {_size(r.get('flatbuffer_bytes'))}")
    if r.get("extension"):
        print(f"  size crc {r.get('size_crc')}, flatbuffer crc {r.get('flatbuffer_crc')}, "
              f"structure {r.get('structure', 'unchecked')}")
        if r.get("reason"):
            print(f"  reason: {r['reason']}")
    print(f"  {r.get('row_groups')} row groups, {r.get('columns')} columns, {r.get('num_rows')} rows "
          f"(metadata from {r.get('metadata_source')})")
    print(f"  created_by: {r.get('created_by')}")
    for c in r.get("alp_chunks") or []:
        print(f"  ALP row group {c['row_group']}, {c['column']}: {c['encoding']} ({c['reason']})")


def _print_change(r: dict) -> None:
    status = r["status"]
    detail = ""
    if status == "decoded":
        detail = (f" ({r['alp_chunks_decoded']} ALP chunks to PLAIN, {r['private_alp_dropped']} private ALP chunks "
                  f"dropped, {_size(r['bytes_before'])} -> {_size(r['bytes_after'])})")
    elif status in ("added", "stripped", "unchanged", "migrated"):
        parts = [f"{r['from']} -> {r['to']}"] if r.get("to") else []
        if r.get("thrift_bytes") is not None:
            parts.append(f"thrift {_size(r.get('thrift_bytes'))}")
        if r.get("flatbuffer_bytes"):
            parts.append(f"flatbuffer {_size(r.get('flatbuffer_bytes'))}")
        if r.get("seconds") is not None:
            parts.append(f"{r['seconds']:.3f} s")
        if r.get("replace") == "object":
            parts.append("object store: new object written, then it replaced the old one")
        elif r.get("replace") in ("in-place", "delete-rename"):
            parts.append(f"{r['replace']}, not atomic")
        detail = " (" + ", ".join(parts) + ")"
        if r.get("source") and r["source"] != r["path"]:
            detail += f" from {r['source']}"
    elif r.get("message"):
        detail = f": {r['message']}"
    print(f"{status} {r['path']}{detail}")


def _print_upload(r: dict) -> None:
    if r["status"] == "error":
        print(f"error {r['path']}: {r.get('message')}")
    else:
        print(f"{r['status']} {r['path']} upload {r['upload_id']} ({r['age_seconds']:,} s old, started {r['initiated']})")


def _print_verify(r: dict) -> None:
    reason = r.get("reason") or r.get("message")
    if reason is None and r.get("first_difference") is not None:
        reason = f"first difference at byte {r['first_difference']}"
    print(f"{r['status']} {r['path']}" + (f": {reason}" if reason else ""))


def _exit_code(command: str, results: List[dict]) -> int:
    statuses = {r["status"] for r in results}
    if statuses & _FAILED:
        return 1
    if command == "verify" and "absent" in statuses:
        return 2
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="superspark-footer",
                                     description="Parquet FlatBuffers footer extension tools")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, help_text in [("inspect", "show the footer and its extension"),
                            ("verify", "check CRCs and that the FlatBuffer matches the Thrift footer"),
                            ("roundtrip", "Thrift -> FlatBuffer -> Thrift: are the bytes the same?")]:
        p = sub.add_parser(name, help=help_text)
        p.add_argument("--json", action="store_true", help="print JSON")
        p.add_argument("paths", nargs="+", metavar="PATH")
    for name, help_text in [("add", "add the extension (rewrites only the footer)"),
                            ("strip", "remove the extension (byte-identical to before add)"),
                            ("alp-decode", "turn ALP chunks into PLAIN ones and drop private ALP data (docs/alp.md)")]:
        p = sub.add_parser(name, help=help_text)
        p.add_argument("--output", "-o", help="write here instead of over the file")
        if name != "alp-decode":
            p.add_argument("--unsafe-in-place", action="store_true", help=_UNSAFE_HELP)
        p.add_argument("--json", action="store_true", help="print JSON")
        p.add_argument("paths", nargs="+", metavar="PATH")
    p = sub.add_parser("migrate", help="rewrite the footer into another form (data pages untouched)")
    p.add_argument("--to", required=True, choices=api.FORMS, help="the footer form to write")
    p.add_argument("--output", "-o", help="write here instead of over the file")
    p.add_argument("--unsafe-in-place", action="store_true", help=_UNSAFE_HELP)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p = sub.add_parser("uploads", help="list the incomplete S3 multipart uploads under s3a:// prefixes (and abort old ones)")
    p.add_argument("--abort-older-than", metavar="AGE", help="abort the uploads at least this old: a number and "
                   "s, m, h or d (e.g. 1h)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("paths", nargs="+", metavar="PATH")
    for name, help_text in [("add-table", "add the extension to a table's files, as a Spark job"),
                            ("strip-table", "remove the extension from a table's files, as a Spark job"),
                            ("migrate-table", "rewrite a table's footers into another form, as a Spark job")]:
        p = sub.add_parser(name, help=help_text + " (crash-safe, resumable; refuses Delta tables)")
        if name == "migrate-table":
            p.add_argument("--to", required=True, choices=api.FORMS, help="the footer form to write")
        p.add_argument("--master", default="local[*]", help="Spark master (default local[*])")
        p.add_argument("--json", action="store_true", help="print every file's result as JSON")
        p.add_argument("path", metavar="PATH", help="the table's folder (any Hadoop file system)")
    # Hadoop's generic option, anywhere on the line: -D key=value or -Dkey=value.
    rest, hadoop_conf = [], []
    argv = list(sys.argv[1:] if argv is None else argv)
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "-D" and i + 1 < len(argv) and "=" in argv[i + 1]:
            hadoop_conf.append(argv[i + 1])
            i += 2
            continue
        if a.startswith("-D") and "=" in a:
            hadoop_conf.append(a[2:])
        else:
            rest.append(a)
        i += 1
    try:
        args = parser.parse_args(rest)
    except SystemExit as e:
        return 64 if e.code else 0
    args.hadoop_conf = hadoop_conf
    if args.command.endswith("-table"):
        return _run_table_command(args)
    in_process = _launcher.has_gateway()
    if in_process:
        for kv in hadoop_conf:
            _launcher.set_hadoop_conf(*kv.split("=", 1))
    try:
        if not in_process:
            # The command line as a user runs it: one call in a new JVM process.
            results = _launcher.run_tool_process(args.command, api._paths(args.paths), getattr(args, "output", None),
                                                 getattr(args, "to", None), getattr(args, "unsafe_in_place", False),
                                                 hadoop_conf, getattr(args, "abort_older_than", None))
        elif args.command in ("add", "strip"):
            results = getattr(api, args.command)(args.paths, output=args.output, unsafe_in_place=args.unsafe_in_place)
        elif args.command == "uploads":
            results = api.uploads(*args.paths, abort_older_than=args.abort_older_than)
        elif args.command == "alp-decode":
            results = api.alp_decode(args.paths, output=args.output)
        elif args.command == "migrate":
            results = api.migrate(args.paths, to=args.to, output=args.output, unsafe_in_place=args.unsafe_in_place)
        else:
            results = getattr(api, args.command)(args.paths)
    except (FileNotFoundError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 64
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        printer = {"inspect": _print_inspect, "verify": _print_verify,
                   "roundtrip": _print_verify, "uploads": _print_upload}.get(args.command, _print_change)
        for r in results:
            printer(r)
        if not results:
            print("no incomplete uploads" if args.command == "uploads" else "no Parquet files found", file=sys.stderr)
    return _exit_code(args.command, results)


if __name__ == "__main__":
    sys.exit(main())
