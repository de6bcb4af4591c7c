# The two commands: `make demo` and `make test`. Both set everything up from a fresh clone.
.PHONY: shared-notice prefetch parquet-rs-check test-lines test-stores check-azure bench-rewrite bench-rewrite-s3 fuzz-footer fuzz-bsup fuzz-alp bench-alp setup jar demo test test-jvm test-py wheel clean bench-arrow bench-bsup bench-footer footer-rebuild-survey bench-sb bench-interceptor profile-interceptor-second bench-interceptor-s3 bench-interceptor-gs bench-interceptor-delta bench-compile bench-every-writer

# Spark lines (docs/spark-lines.md). 4.3 is the default development line: `make setup`, `make jar`,
# `make test` build it from `.venv`. The others are built and tested by `make test-lines`, each in
# its own venv (.venv-spark4.x) made by `SPARK_LINE=4.x dev/setup.sh`.
SPARK_LINE ?= 4.3
ALL_LINES = 4.0 4.1 4.2 4.3
OTHER_LINES ?= 4.0 4.1 4.2
# What runs on the other lines: the suites that touch line-specific code (the interceptor, ALP's
# scan, the bsup columnar reader's FileFormat batch API), Delta Lake, and the package check (the
# Delta lines compile more packages).
LINE_SUITES = io.superspark.parquet.interceptor.* io.superspark.parquet.alp.spark.* io.superspark.parquet.logicaltypes.* io.superspark.delta.* \
	io.superspark.bsup.spark.BsupColumnarSuite io.superspark.PackageCyclesSuite
# What each other line leaves to another (scalatest tags, jvm/src/test/scala/io/superspark/TestTags.scala;
# docs/ci.md): the line-independent tests at scale run on 4.3, the Delta with/without twins whole on 4.2,
# the corpus once per parquet-java source tree (4.0's parquet-1.15, 4.3's parquet-1.16+).
LINE_EXCLUDES_4.0 = -l io.superspark.LineIndependent -l io.superspark.DeltaNewestLine
LINE_EXCLUDES_4.1 = $(LINE_EXCLUDES_4.0) -l io.superspark.OncePerParquetJava
LINE_EXCLUDES_4.2 = -l io.superspark.LineIndependent -l io.superspark.OncePerParquetJava
# The lines whose scalatest suites run (LINE_SUITES): 4.0 and 4.2. Every line-specific source folder 4.1
# compiles (spark-4.0-4.1, spark-4.0-4.2, spark-4.1-4.3, parquet-1.16+) is shared with 4.0 or 4.2, and its own
# (spark-4.1) is one shim object; 4.1 runs the line's pytest files and store smoke (docs/spark-lines.md).
SCALATEST_LINES = 4.0 4.2
# The store smoke tests per line (pytest -k): Delta on S3 (a table migrated, everyWriter's appends) on 4.2.
LINE_SMOKE_4.0 = smoke and not delta
LINE_SMOKE_4.1 = smoke and not delta
LINE_SMOKE_4.2 = smoke
LINE_PYTESTS = tests/test_foundation.py tests/test_parquet_interceptor.py tests/test_parquet_interceptor_v2.py \
	tests/test_parquet_float16.py tests/test_alp_forms.py tests/test_interceptor_settings.py tests/test_footer_forms.py tests/test_every_writer.py \
	$(wildcard tests/test_arrow*.py)

shared-notice:
	@./dev/shared-notice.sh

setup:
	SPARK_LINE=$(SPARK_LINE) ./dev/setup.sh

jar:
	SPARK_LINE=$(SPARK_LINE) ./dev/sbt package

demo: setup
	.venv/bin/python examples/demo.py

test: shared-notice prefetch setup
	rm -rf jvm/target/pytest-reports
	$(MAKE) bench-compile
	@echo "[superspark] $$(date +%T) Spark line 4.3: scalatest"
	./dev/sbt test
	touch $(PREFETCH_MARK)
	$(MAKE) parquet-rs-check
	@echo "[superspark] $$(date +%T) Spark line 4.3: pytest"
	.venv/bin/python -m pytest -ra --junitxml=jvm/target/pytest-reports/spark-4.3.xml tests
	@echo "[superspark] $$(date +%T) Spark line 4.3: store suites"
	$(MAKE) test-stores
	$(MAKE) test-lines
	@grep -ho '\[prefetch\].*' $(PREFETCH_LOG) || true
	@.venv/bin/python dev/skips.py jvm/target/spark-*/test-reports jvm/target/pytest-reports

# `make test`'s background builds (dev/prefetch.sh): the arrow-rs checker, the store servers, the other
# lines' venvs, then (once the 4.3 line's sbt is done: PREFETCH_MARK) their jars and test classes, niced,
# while the 4.3 line's setup and suites run; each foreground step waits for its twin. $$PPID: this make.
PREFETCH_LOG = jvm/target/prefetch.log
PREFETCH_MARK = jvm/target/prefetch-sbt-free
prefetch:
	mkdir -p jvm/target && rm -f $(PREFETCH_MARK)
	OTHER_LINES="$(OTHER_LINES)" SCALATEST_LINES="$(SCALATEST_LINES)" ./dev/prefetch.sh $(PREFETCH_LOG) $(PREFETCH_MARK) $$PPID \
	  </dev/null >/dev/null 2>&1 &

# arrow-rs as a second reader (docs/alp.md, tests/test_parquet_rs.py): our checker on the Rust
# `parquet` crate (60.1.0, Cargo.lock), copied to dev/parquet-rs-check/target/debug (ignored). Cargo's
# target folder is kept beside the other package caches (outside the clone, like pip's), so a fresh
# clone on the same machine rebuilds only the checker, not its dependencies (94 s cold). No cargo: fails.
RS_CHECK_TARGET = $(if $(SUPERSPARK_CACHE_DIR),$(SUPERSPARK_CACHE_DIR),$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/superspark)/parquet-rs-check-target
parquet-rs-check:
	cargo build --locked --manifest-path dev/parquet-rs-check/Cargo.toml --target-dir "$(RS_CHECK_TARGET)"
	install -D "$(RS_CHECK_TARGET)/debug/parquet-rs-check" dev/parquet-rs-check/target/debug/parquet-rs-check

# The version-specific and Delta suites on every line but 4.3 (scalatest, then pytest): 4.0, 4.1, 4.2.
test-lines:
	set -e; for l in $(OTHER_LINES); do \
	  echo "[superspark] $$(date +%T) Spark line $$l: setup"; \
	  SPARK_LINE=$$l ./dev/setup.sh; \
	  case $$l in 4.0) x="$(LINE_EXCLUDES_4.0)"; k="$(LINE_SMOKE_4.0)";; 4.1) x="$(LINE_EXCLUDES_4.1)"; k="$(LINE_SMOKE_4.1)";; \
	    4.2) x="$(LINE_EXCLUDES_4.2)"; k="$(LINE_SMOKE_4.2)";; *) x=""; k=smoke;; esac; \
	  if echo " $(SCALATEST_LINES) " | grep -q " $$l "; then \
	    echo "[superspark] $$(date +%T) Spark line $$l: scalatest"; \
	    SPARK_LINE=$$l ./dev/sbt "testOnly $(LINE_SUITES) -- $$x"; \
	  fi; \
	  echo "[superspark] $$(date +%T) Spark line $$l: pytest"; \
	  .venv-spark$$l/bin/python -m pytest -ra --junitxml=jvm/target/pytest-reports/spark-$$l.xml $(LINE_PYTESTS); \
	  echo "[superspark] $$(date +%T) Spark line $$l: store smoke"; \
	  ./dev/stores/run-tests.sh .venv-spark$$l -k "$$k" --junitxml=jvm/target/pytest-reports/stores-$$l.xml; \
	done; echo "[superspark] $$(date +%T) lines done"

# The store suites (issues 31, 40, docs/storage.md): tests_stores/ on S3 (versitygw), HDFS (a mini-cluster) and
# GCS (fake-gcs-server, built with `go install` once; gs:// on 4.3 only), all started by dev/stores/start.sh
# and stopped on exit by dev/stores/run-tests.sh's trap. The other lines run the smoke test of it (test-lines).
test-stores: setup
	./dev/stores/run-tests.sh .venv --junitxml=jvm/target/pytest-reports/stores-$(SPARK_LINE).xml

# Azure against Azurite (issue 40, docs/storage.md "Azure"): hadoop-azure at the line's Hadoop on wasb:// and
# abfs:// (dev/stores/azure-check.sh). Not in `make test`: it exits 1, as wasb:// and the DFS endpoint fail.
check-azure: setup
	./dev/stores/azure-check.sh .venv

# Every bench compiles, none runs (issue 24): the JVM sources (bench/**/*.java, JMH's annotation
# processor included) against the jar's classes and the line's jars, and the Python scripts.
bench-compile:
	./dev/sbt benchCompile
	find bench -name '*.py' -print0 | PYTHONPYCACHEPREFIX=jvm/target/bench-pycache xargs -0 .venv/bin/python -m py_compile

test-jvm:
	./dev/sbt test

test-py:
	.venv/bin/python -m pytest -ra tests

clean:
	rm -rf jvm/target project/target python/build

# One wheel with every line's jar; superspark.jar_path() picks the running pyspark's.
wheel:
	rm -rf python/superspark/jars python/dist
	mkdir -p python/superspark/jars
	set -e; for l in $(ALL_LINES); do SPARK_LINE=$$l ./dev/setup.sh; \
	  cp jvm/target/spark-$$l/scala-2.13/superspark-spark$${l}_2.13-*.jar python/superspark/jars/; done
	.venv/bin/python -m pip wheel --no-deps -w python/dist ./python

bench-arrow: setup
	bench/arrow/run.sh

bench-bsup: setup
	./dev/sbt bsupBenchJars
	.venv/bin/python bench/bsup/bench.py

# Parquet footer benchmark (bench/parquet_footer/run.py, JMH): prints ratio= lines.
# FOOTER_BENCH=cold: only the command line part (cold add/migrate), no JMH.
bench-footer: setup
	./dev/sbt footerBenchJars
	.venv/bin/python bench/parquet_footer/run.py

# FlatBuffer -> Thrift rebuild survey (pyarrow, DuckDB, Polars, Spark files + parquet-testing).
footer-rebuild-survey: setup
	.venv/bin/python bench/parquet_footer/rebuild_survey.py

# Parquet footer interceptor benchmark (bench/parquet_interceptor/run.py): prints ratio= lines.
bench-interceptor: setup
	.venv/bin/python bench/parquet_interceptor/run.py

# The same with the files in a bucket (the servers started and stopped around it by dev/stores/run.sh):
# ratio= lines for the first and the second query, and GETs and bytes per file (bench/parquet_interceptor/remote.py).
# On S3 (versitygw) once per S3A input stream: classic, and the Hadoop line's default.
bench-interceptor-s3: setup
	./dev/stores/run.sh sh -c 'BENCH_S3_STREAM=classic .venv/bin/python bench/parquet_interceptor/remote.py s3 && \
	  BENCH_S3_STREAM= .venv/bin/python bench/parquet_interceptor/remote.py s3'

# On GCS (fake-gcs-server, Google's connector).
bench-interceptor-gs: setup
	./dev/stores/run.sh .venv/bin/python bench/parquet_interceptor/remote.py gs

# Where superspark's second query (warm footer cache) spends its time: driver, jobs, tasks, footers.
profile-interceptor-second: setup
	.venv/bin/python bench/parquet_interceptor/profile_second.py

# The same on a Delta Lake table, on Spark 4.2 with delta-spark 4.4.0 (bench/parquet_interceptor/delta_table.py).
bench-interceptor-delta:
	SPARK_LINE=4.2 ./dev/setup.sh
	.venv-spark4.2/bin/python bench/parquet_interceptor/delta_table.py

# Delta Lake's own writes with and without spark.superspark.parquet.footer.everyWriter (Spark 4.2,
# delta-spark 4.4.0): append overhead and the wide table's first and second query (bench/every_writer/run.py).
bench-every-writer:
	SPARK_LINE=4.2 ./dev/setup.sh
	.venv-spark4.2/bin/python bench/every_writer/run.py

# Super Binary SQL functions vs from_avro/to_avro and from_json/to_json: prints ratio= lines.
bench-sb: setup
	./dev/sbt bsupBenchJars
	.venv/bin/python bench/sb_functions/bench.py

# Seeded mutation fuzzer of the footer reader and of add's Thrift transcoder (FooterFuzz):
# FUZZ_N inputs each (default 100000), FUZZ_SEED (default 1). Prints the outcome counts;
# exits 1 on any failure. CI runs a 1,000-input slice of each (FooterFuzzSuite).
fuzz-footer: setup
	./dev/sbt "Test/runMain io.superspark.parquet.footer.files.FooterFuzz $${FUZZ_N:-100000} $${FUZZ_SEED:-1}"

# Seeded mutation fuzzer of every Super Binary decode path (BsupFuzz): FUZZ_N inputs (default
# 100000), FUZZ_SEED (default 1). Prints the outcome counts; exits 1 on any failure. CI runs a
# 10,000-input slice (BsupFuzzSuite).
fuzz-bsup: setup
	./dev/sbt "Test/runMain io.superspark.bsup.BsupFuzz $${FUZZ_N:-100000} $${FUZZ_SEED:-1}"

# Seeded mutation fuzzer of the ALP page decoder (AlpFuzz): FUZZ_N inputs (default 100000),
# FUZZ_SEED (default 1). Prints the outcome counts; exits 1 on any failure. CI runs a
# 20,000-input slice (AlpFuzzSuite).
fuzz-alp: setup
	./dev/sbt "Test/runMain io.superspark.parquet.alp.AlpFuzz $${FUZZ_N:-100000} $${FUZZ_SEED:-1}"

# ALP benchmark (bench/alp/run.py): ALP page bytes vs PLAIN+snappy, PLAIN+zstd, BYTE_STREAM_SPLIT+zstd,
# codec decode speed, Spark sum(col) scans; prints ratio= lines, writes docs/alp-bench.png.
# BENCH_N (default 10,000,000 values a column), BENCH_REPEATS (9), BENCH_PARTS (bytes,decode,scan).
bench-alp: setup
	.venv/bin/python bench/alp/run.py

# Footer rewrite benchmark (bench/footer_rewrite/run.py): migrate --to final, crash-safe default vs the old
# in-place path, by the CLI and by the table job on local[2]; files/s, MB/s, ratio= lines. Scale down with
# BENCH_REWRITE_SMALL (10000 files), BENCH_REWRITE_LARGE (100), BENCH_REWRITE_RUNS (3).
bench-rewrite: setup
	.venv/bin/python bench/footer_rewrite/run.py

# The footer rewrite on S3 (bench/footer_rewrite/s3.py): `add` on a 1 GiB object with a 10,000-column footer in
# the store suites' S3 server (versitygw, started and stopped around it by dev/stores/run.sh), server-side
# (UploadPartCopy) against the streamed path (superspark.footer.serverSideCopy=false), 3 paired rounds:
# time and client bytes (S3A IOStatistics), ratio= lines. BENCH_REWRITE_S3_MIB (1024), BENCH_ROUNDS (3).
bench-rewrite-s3: setup
	./dev/stores/run.sh .venv/bin/python bench/footer_rewrite/s3.py

