"""Where superspark's second query goes (make profile-interceptor-second): a breakdown, not a ratio.

The query of `make bench-interceptor`'s cache part (5 of 10,000 columns, a filter, count(), over
the same 50 files), run with a warm footer cache, split into what the driver does and what the
tasks do, from Spark's own records of the query and its jobs (the query's phase tracker and the
application status store, read through py4j) and superspark's footer counters:

  read     `spark.read.parquet(path)`: listing the files and inferring the schema (one footer,
           from the cache)
  plan     the query's analysis, optimization and planning (Spark's QueryPlanningTracker)
  jobs     each job's wall time from submission to completion, its tasks, and the tasks'
           summed run, CPU and deserialization times (AppStatusStore's stage data)
  footers  superspark's footer time inside those tasks: decode_ns (verify + decode, cache hits
           included) over the files opened
  other    the query's wall time less the above: result handling, py4j, job scheduling

Warm on this side: the JVM (a warm-up round), the page cache, the footer cache (the first query
of each round fills it; only second queries are profiled). Environment: as run.py's (BENCH_*),
plus PROFILE_ROUNDS (5), and PROFILE_JFR=1: a JDK Flight Recorder sampling profile of the
second queries alone (started and stopped around them with jcmd), printed as the methods most
often on the sampled stacks (inclusive) and at their tops (self), with their share of samples.
"""

import collections
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (the bench's table and settings)

ROUNDS = int(os.environ.get("PROFILE_ROUNDS", 5))
JFR = os.environ.get("PROFILE_JFR") == "1"


def jcmd(pid: int, *args: str) -> None:
    subprocess.run(["jcmd", str(pid), *args], check=True, stdout=subprocess.DEVNULL)


def print_profile(recordings: list, top: int = 25) -> None:
    """The sampled stacks of recordings (`jfr print`), as inclusive and self shares per method."""
    text = "".join(subprocess.run(["jfr", "print", "--events", "jdk.ExecutionSample", "--stack-depth", "64", r],
                                  check=True, capture_output=True, text=True).stdout for r in recordings)
    inclusive, self_ = collections.Counter(), collections.Counter()
    samples = 0
    for event in text.split("jdk.ExecutionSample")[1:]:
        frames = [m.group(1) for m in re.finditer(r"^\s+([\w$.<>]+)\(", event, re.M)]
        if not frames:
            continue
        samples += 1
        self_[frames[0]] += 1
        for f in set(frames):
            inclusive[f] += 1
    print(f"JFR: {samples} execution samples of the second queries (all threads)")
    print("inclusive (on the stack), superspark's methods:")
    for f, n in [x for x in inclusive.most_common() if x[0].startswith("io.superspark")][:top]:
        print(f"  {100 * n / samples:5.1f}%  {f}")
    print("inclusive, all methods:")
    for f, n in inclusive.most_common(top):
        print(f"  {100 * n / samples:5.1f}%  {f}")
    print("self (top of the stack):")
    for f, n in self_.most_common(top):
        print(f"  {100 * n / samples:5.1f}%  {f}")


def jobs_since(sc, last_job: int):
    """(job id, wall s, tasks, run s, cpu s, deserialize s) of the jobs after `last_job`."""
    store = sc._jsc.sc().statusStore()
    out = []
    jobs = store.jobsList(None)  # a Scala Seq
    for i in range(jobs.length()):
        j = jobs.apply(i)
        if j.jobId() <= last_job:
            continue
        sub, done = j.submissionTime(), j.completionTime()
        wall = (done.get().getTime() - sub.get().getTime()) / 1e3 if sub.isDefined() and done.isDefined() else float("nan")
        run_s = cpu_s = deser_s = 0.0
        tasks = 0
        ids = j.stageIds()
        for k in range(ids.length()):
            stages = store.stageData(ids.apply(k), False, None, False, None)
            for n in range(stages.length()):
                s = stages.apply(n)
                tasks += s.numCompleteTasks()
                run_s += s.executorRunTime() / 1e3
                cpu_s += s.executorCpuTime() / 1e9
                deser_s += s.executorDeserializeTime() / 1e3
        out.append((j.jobId(), wall, tasks, run_s, cpu_s, deser_s))
    return sorted(out)


def last_job_id(sc) -> int:
    jobs = sc._jsc.sc().statusStore().jobsList(None)
    return max([jobs.apply(i).jobId() for i in range(jobs.length())], default=-1)


def main() -> None:
    import superspark
    from superspark import parquet_interceptor as pi

    spark = superspark.session("profile-interceptor-second", master="local[2]",
                               **{"spark.driver.memory": run.DRIVER_MEMORY,
                                  "spark.superspark.parquet.footer.cache.maxBytes": run.CACHE_BYTES,
                                  "spark.ui.showConsoleProgress": "false", "spark.sql.shuffle.partitions": "2"})
    spark.sparkContext.setLogLevel("ERROR")
    sc = spark.sparkContext
    _, path = run.generate()
    cols = [f"c{i}" for i in (0, run.COLUMNS // 4, run.COLUMNS // 2, 3 * run.COLUMNS // 4, run.COLUMNS - 1)]
    rows = []
    pid = spark._jvm.java.lang.ProcessHandle.current().pid()
    recording = os.path.join(tempfile.gettempdir(), f"superspark-second-{pid}")
    for rnd in range(ROUNDS + 1):  # round 0 warms up the JVM
        pi.clear_footer_cache(spark)
        spark.read.parquet(path).select(*cols).where(f"{cols[0]} < 500").count()  # the first query fills the cache
        pi.reset_footer_metrics(spark)
        if JFR and rnd > 0:
            jcmd(pid, "JFR.start", "name=second", "settings=profile")
        last = last_job_id(sc)
        t0 = time.perf_counter()
        df = spark.read.parquet(path)
        t_read = time.perf_counter() - t0
        q = df.select(*cols).where(f"{cols[0]} < 500").groupBy().count()
        n = q.collect()[0][0]
        wall = time.perf_counter() - t0
        if JFR and rnd > 0:
            jcmd(pid, "JFR.stop", "name=second", f"filename={recording}-{rnd}.jfr")
        phases = q._jdf.queryExecution().tracker().phases()
        plan = sum((phases.apply(p).durationMs() for p in ("analysis", "optimization", "planning")
                    if phases.contains(p))) / 1e3
        jobs = jobs_since(sc, last)
        m = pi.footer_metrics(spark)
        files = m["footers_flatbuffer"] + m["footers_thrift"]
        if rnd == 0:
            continue
        jobs_wall = sum(j[1] for j in jobs)
        rows.append({"wall": wall, "read": t_read, "plan": plan, "jobs": len(jobs), "jobs_wall": jobs_wall,
                     "tasks": sum(j[2] for j in jobs), "task_run": sum(j[3] for j in jobs),
                     "task_cpu": sum(j[4] for j in jobs), "task_deser": sum(j[5] for j in jobs),
                     "footer_s": m["decode_ns"] / 1e9, "files": files, "count": n,
                     "other": wall - t_read - plan - jobs_wall})
        print(f"round {rnd}: wall {wall:.3f}s = read {t_read:.3f} + plan {plan:.3f} + {len(jobs)} job(s) "
              f"{jobs_wall:.3f} + other {rows[-1]['other']:.3f}; tasks {rows[-1]['tasks']} run "
              f"{rows[-1]['task_run']:.3f}s cpu {rows[-1]['task_cpu']:.3f}s deser {rows[-1]['task_deser']:.3f}s; "
              f"footers {files} in {rows[-1]['footer_s'] * 1e3:.1f} ms; count {n}", flush=True)
    med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
    load = os.getloadavg()
    print(f"second query, {run.FILES} files x {run.COLUMNS} columns x {run.ROW_GROUPS} row groups, 5 columns, "
          f"medians of {ROUNDS} rounds, load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"wall={med['wall']:.3f}s read={med['read']:.3f}s plan={med['plan']:.3f}s jobs={med['jobs']:.0f} "
          f"jobs_wall={med['jobs_wall']:.3f}s other={med['other']:.3f}s")
    print(f"tasks={med['tasks']:.0f} task_run_sum={med['task_run']:.3f}s task_cpu_sum={med['task_cpu']:.3f}s "
          f"task_deserialize_sum={med['task_deser']:.3f}s per_task_run={med['task_run'] / max(med['tasks'], 1) * 1e3:.1f}ms")
    print(f"footers={med['files']:.0f} footer_time_sum={med['footer_s'] * 1e3:.1f}ms "
          f"per_file={med['footer_s'] / max(med['files'], 1) * 1e3:.2f}ms")
    spark.stop()
    if JFR:
        parts = [f"{recording}-{r}.jfr" for r in range(1, ROUNDS + 1)]
        print_profile(parts)
        for part in parts:
            os.remove(part)


if __name__ == "__main__":
    main()
