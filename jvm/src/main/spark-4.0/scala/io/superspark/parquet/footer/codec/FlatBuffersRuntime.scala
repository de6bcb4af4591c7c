package io.superspark.parquet.footer.codec

/**
 * The check flatc writes into every generated class (`ValidateVersion`), pointed at the
 * flatbuffers-java that Spark 4.0 ships (24.3.25; the generated classes use only methods it
 * has, which this line's build checks): see dev/gen-footer-fbs.sh.
 */
private[superspark] object FlatBuffersRuntime {
  def validateVersion(): Unit = com.google.flatbuffers.Constants.FLATBUFFERS_24_3_25()
}
