"""The footer rewrite on S3, server-side against today's streamed path (make bench-rewrite-s3, issue 40
item 3): prints ratio= lines for the time and for the bytes on the client's network.

The object: one Parquet file of BENCH_REWRITE_S3_MIB MiB (default 1024) with BENCH_REWRITE_S3_COLUMNS
(10,000) int64 columns of random values (no compression, no dictionary: the data part is that size) in
BENCH_REWRITE_S3_ROW_GROUPS (4) row groups, made locally once with pyarrow (bench/out/), uploaded
through S3A once into the bucket of dev/stores/start.sh's S3 server (versitygw). Each round copies it
on the store (CopyObject, not measured) to a work key per mode and runs `add` (superspark.footer.add
in the bench's SparkSession JVM, one call) on it: `server` (the default: superspark.footer.serverSideCopy
on, the data part copied on the store) and `streamed` (superspark.footer.serverSideCopy=false: the
object read and written through the client, today's path). A warm-up pair first, on a 6 MiB object
(class loading, JIT); then BENCH_ROUNDS (3) paired rounds, the order of the pair alternating; medians
with min-max. The two results are compared byte for byte once (MD5 through S3A). Each round also
times the replacement alone: FooterRewrite.replaceTail of the rewritten object by itself (its tail read
back, unchanged), i.e. the object's copy without reading the footer and building the new one.

Client bytes, from the S3A file system's IOStatistics with the classic input stream
(BENCH_S3_STREAM, default `classic`): received = `stream_read_bytes` (bytes the streams returned) +
`stream_read_bytes_discarded_in_close` (bytes drained when a stream closed); sent = `object_put_bytes`
(bytes of S3A's PUTs and part uploads) + the server-side rewrite's part bodies
(FooterRewrite.serverSideBytesSent: they go through S3A's client, which IOStatistics do not see). HTTP
headers and request XML are not counted. The goal (issue 40): server-side client bytes <= 1.1 x (old
tail + new tail) and the time >= 10x faster than the streamed path on the same server.

Environment: BENCH_REWRITE_S3_MIB, BENCH_REWRITE_S3_COLUMNS, BENCH_REWRITE_S3_ROW_GROUPS, BENCH_ROUNDS,
BENCH_DIR (bench/out), BENCH_DRIVER_MEMORY (4g), BENCH_S3_STREAM. The endpoints come from the
environment dev/stores/run.sh exports.
"""

import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests_stores"))
sys.path.insert(0, os.path.dirname(HERE))

from conftest import endpoints, s3a_spark_conf  # noqa: E402  (the S3A settings a user gives)
import rounds  # noqa: E402  (bench/rounds.py: paired rounds into one figure)

MIB = int(os.environ.get("BENCH_REWRITE_S3_MIB", "1024"))
COLUMNS = int(os.environ.get("BENCH_REWRITE_S3_COLUMNS", "10000"))
ROW_GROUPS = int(os.environ.get("BENCH_REWRITE_S3_ROW_GROUPS", "4"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
BASE = os.environ.get("BENCH_DIR", os.path.join(REPO, "bench", "out"))
DRIVER_MEMORY = os.environ.get("BENCH_DRIVER_MEMORY", "4g")
STREAM = os.environ.get("BENCH_S3_STREAM", "classic")
SERVER_SIDE = "superspark.footer.serverSideCopy"
COUNTERS = ("stream_read_bytes", "stream_read_bytes_discarded_in_close", "object_put_bytes",
            "action_http_get_request", "object_put_request")


def generate(mib: int, columns: int, row_groups: int) -> str:
    """The local Parquet file (made once per parameter set)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = os.path.join(BASE, f"rewrite_s3_{mib}mib_{columns}c_{row_groups}rg.parquet")
    if os.path.exists(path):
        return path
    os.makedirs(BASE, exist_ok=True)
    t = time.time()
    rows = max(1, (mib << 20) // (columns * 8) // row_groups)
    rng = np.random.default_rng(42)
    schema = pa.schema([(f"c{i}", pa.int64()) for i in range(columns)])
    tmp = path + ".tmp"
    with pq.ParquetWriter(tmp, schema, compression="none", use_dictionary=False) as w:
        for _ in range(row_groups):
            block = rng.integers(-(1 << 62), 1 << 62, size=(columns, rows))
            w.write_table(pa.Table.from_arrays([pa.array(c) for c in block], schema=schema), row_group_size=rows)
    os.replace(tmp, path)
    print(f"generated {path}: {os.path.getsize(path) / 2**20:.1f} MiB, {columns} columns x {row_groups} row groups "
          f"of {rows} rows, in {time.time() - t:.1f} s", flush=True)
    return path


def main() -> None:
    import superspark
    import superspark.footer as footer

    env = endpoints()
    local = generate(MIB, COLUMNS, ROW_GROUPS)
    small = generate(6, 100, 1)
    spark = superspark.session("bench-rewrite-s3", master="local[1]", **{**s3a_spark_conf(env, STREAM),
        "spark.ui.enabled": "false", "spark.driver.memory": DRIVER_MEMORY,
        "spark.ui.showConsoleProgress": "false"})
    spark.sparkContext.setLogLevel("ERROR")
    jvm, conf = spark._jvm, spark._jsc.hadoopConfiguration()
    Path = jvm.org.apache.hadoop.fs.Path
    rewrite = jvm.io.superspark.parquet.footer.tools.FooterRewrite
    bucket = env["SUPERSPARK_S3_BUCKET"]
    root = f"s3a://{bucket}/bench-rewrite-s3"
    fs = Path(root).getFileSystem(conf)
    s3 = fs.getS3AInternals().getAmazonS3Client("bench-rewrite-s3")
    model = jvm.software.amazon.awssdk.services.s3.model

    masters = {}
    t = time.time()
    for name, f in (("big", local), ("small", small)):
        dst = Path(f"{root}/master/{os.path.basename(f)}")
        if not fs.exists(dst) or fs.getFileStatus(dst).getLen() != os.path.getsize(f):
            fs.copyFromLocalFile(False, True, Path("file://" + f), dst)
        masters[name] = dst
    print(f"upload: in the bucket in {time.time() - t:.1f} s", flush=True)

    def copy_to(master, key):
        s3.copyObject(model.CopyObjectRequest.builder().sourceBucket(bucket).sourceKey(fs.pathToKey(master))
                      .destinationBucket(bucket).destinationKey(key).build())
        return f"s3a://{bucket}/{key}"

    def counters():
        stats = fs.getIOStatistics().counters()
        out = {k: int(stats.getOrDefault(k, 0)) for k in COUNTERS}
        out["server_side_sent"] = int(rewrite.serverSideBytesSent())
        return out

    def run(master, mode):
        target = copy_to(master, f"bench-rewrite-s3/work/{mode}.parquet")
        conf.set(SERVER_SIDE, "true" if mode == "server" else "false")
        try:
            before = counters()
            t0 = time.perf_counter()
            [r] = footer.add(target)
            secs = time.perf_counter() - t0
            after = counters()
        finally:
            conf.unset(SERVER_SIDE)
        want = "server-copy" if mode == "server" else "object"
        assert r["status"] == "added" and r["replace"] == want, r
        d = {k: after[k] - before[k] for k in after}
        received = d["stream_read_bytes"] + d["stream_read_bytes_discarded_in_close"]
        sent = d["object_put_bytes"] + d["server_side_sent"]
        # the replacement alone (FooterRewrite.replaceTail of the object by itself, its tail unchanged): the
        # object's copy without reading the footer and building the new one
        conf.set(SERVER_SIDE, "true" if mode == "server" else "false")
        opened = rewrite.open(Path(target), conf)
        try:
            f = opened.footer()
            tail = bytearray(footer_tail(target, f.footerOffset()))
            t0 = time.perf_counter()
            how = rewrite.replaceTail(opened, tail, jvm.scala.Option.empty(), conf, False).name()
            replace_secs = time.perf_counter() - t0
        finally:
            opened.close()
            conf.unset(SERVER_SIDE)
        assert how == want, how
        return target, secs, received, sent, d, replace_secs

    def footer_tail(target, offset):
        p = Path(target)
        n = fs.getFileStatus(p).getLen() - offset
        stream = fs.open(p)
        try:
            stream.seek(offset)
            return bytes(jvm.org.apache.commons.io.IOUtils.toByteArray(stream, n))
        finally:
            stream.close()

    before_info = footer.inspect(f"s3a://{bucket}/{fs.pathToKey(masters['big'])}")[0]
    load0 = os.getloadavg()
    for mode in ("server", "streamed"):  # warm-up: class loading and JIT on a 6 MiB object
        run(masters["small"], mode)
    times, received, sent = {"server": [], "streamed": []}, {"server": [], "streamed": []}, {"server": [], "streamed": []}
    replace_times = {"server": [], "streamed": []}
    md5 = jvm.org.apache.commons.codec.digest.DigestUtils
    for rnd in range(ROUNDS):
        order = ("server", "streamed") if rnd % 2 == 0 else ("streamed", "server")
        results = {}
        for mode in order:
            target, secs, rx, tx, d, replace_secs = run(masters["big"], mode)
            times[mode].append(secs)
            replace_times[mode].append(replace_secs)
            received[mode].append(rx)
            sent[mode].append(tx)
            results[mode] = target
            print(f"round {rnd + 1} {mode}: {secs:.2f} s (the replacement alone {replace_secs:.2f} s), received {rx / 1e6:.3f} MB, sent {tx / 1e6:.3f} MB "
                  f"({', '.join(f'{k}={v}' for k, v in d.items())})", flush=True)
        if rnd == 0:
            digests = {}
            for mode, target in results.items():
                with_stream = fs.open(Path(target))
                try:
                    digests[mode] = md5.md5Hex(with_stream)
                finally:
                    with_stream.close()
            assert digests["server"] == digests["streamed"], digests
            after_info = footer.inspect(results["server"])[0]
    load1 = os.getloadavg()
    old_tail = before_info["file_bytes"] - before_info["footer_offset"]
    new_tail = after_info["file_bytes"] - after_info["footer_offset"]
    med = statistics.median

    def span(xs, scale=1.0, fmt="{:.2f}"):
        return f"{fmt.format(med(xs) / scale)} ({fmt.format(min(xs) / scale)}-{fmt.format(max(xs) / scale)})"

    print(f"s3 (versitygw, S3A stream {STREAM or 'the line default'}): one object of {before_info['file_bytes'] / 2**20:.1f} MiB, "
          f"{COLUMNS} columns, data part {before_info['footer_offset'] / 2**20:.1f} MiB, old tail {old_tail:,} B, new tail "
          f"{new_tail:,} B; `add`, {ROUNDS} paired rounds after a warm-up pair on a 6 MiB object (JVM warm; the "
          f"server's files just written by CopyObject, so in the page cache); medians (min-max); load average "
          f"{load0[0]:.2f} before, {load1[0]:.2f} after; results identical (MD5)", flush=True)
    for mode in ("server", "streamed"):
        total = [r + s for r, s in zip(received[mode], sent[mode])]
        print(f"{mode}: time {span(times[mode])} s (the replacement alone {span(replace_times[mode])} s), received {span(received[mode], 1e6, '{:.3f}')} MB, sent "
              f"{span(sent[mode], 1e6, '{:.3f}')} MB, client bytes / (old tail + new tail) = "
              f"{span(total, old_tail + new_tail)}", flush=True)
    client = {m: [r + s for r, s in zip(received[m], sent[m])] for m in ("server", "streamed")}
    print(f"time_streamed_over_server: {rounds.ratio_line(times['streamed'], times['server'])} (goal >= 10)", flush=True)
    print(f"replacement_time_streamed_over_server: {rounds.ratio_line(replace_times['streamed'], replace_times['server'])}",
          flush=True)
    print(f"client_bytes_streamed_over_server: {rounds.ratio_line(client['streamed'], client['server'], 1)}", flush=True)
    print(f"client_bytes_server_over_tails: {rounds.ratio_line(client['server'], [old_tail + new_tail] * ROUNDS, 3)} "
          "(goal <= 1.1)", flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
