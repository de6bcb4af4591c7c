# The two commands: `make demo` and `make test`. Both set everything up from a fresh clone.
.PHONY: setup jar demo test test-jvm test-py wheel clean bench-footer bench-arrow bench-interceptor

setup:
	./dev/setup.sh

jar:
	./dev/sbt package

demo: setup
	.venv/bin/python examples/demo.py

test: setup
	./dev/sbt test
	.venv/bin/python -m pytest -ra tests

test-jvm:
	./dev/sbt test

test-py:
	.venv/bin/python -m pytest -ra tests

clean:
	rm -rf jvm/target project/target python/build

wheel: setup
	rm -rf python/superspark/jars python/dist
	mkdir -p python/superspark/jars
	cp jvm/target/scala-2.13/superspark_2.13-*.jar python/superspark/jars/
	.venv/bin/python -m pip wheel --no-deps -w python/dist ./python

# Parquet footer extension benchmark (bench/parquet_footer/run.py): prints ratio= lines.
bench-footer: setup
	.venv/bin/python bench/parquet_footer/run.py

bench-arrow: setup
	bench/arrow/run.sh

# Parquet footer interceptor benchmark (bench/parquet_interceptor/run.py): prints ratio= lines.
bench-interceptor: setup
	.venv/bin/python bench/parquet_interceptor/run.py
