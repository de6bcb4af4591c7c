package io.superspark.parquet.footer.codec

/**
 * The check flatc writes into every generated class (`ValidateVersion`), pointed at the
 * flatbuffers-java that Spark 4.1, 4.2 and 4.3 ship (25.2.10): dev/gen-footer-fbs.sh rewrites
 * the generator's call to this one, so one set of generated classes builds on every line.
 */
private[superspark] object FlatBuffersRuntime {
  def validateVersion(): Unit = com.google.flatbuffers.Constants.FLATBUFFERS_25_2_10()
}
