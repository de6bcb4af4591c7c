#!/usr/bin/env bash
# Sourced by the store scripts: sets `jars` (a Spark line venv's pyspark/jars folder) and `hv` (the
# Hadoop version of that pyspark, read from its hadoop-client-api jar) for the venv in $1.
jars="$(ls -d "$1"/lib/python3*/site-packages/pyspark/jars | head -1)"
api="$(ls "$jars"/hadoop-client-api-*.jar | head -1)"
hv="$(basename "$api" .jar)"; hv="${hv#hadoop-client-api-}"
