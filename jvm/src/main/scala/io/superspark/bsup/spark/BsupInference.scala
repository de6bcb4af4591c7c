package io.superspark.bsup.spark

import io.superspark.bsup.{BsupException, BsupReader, SuperType}
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path

/** Schema inference: the distinct top-level types of the first values of each file. */
object BsupInference {
  def collectTypes(path: Path, length: Long, conf: Configuration, opts: BsupOptions,
      types: java.util.Set[SuperType], versions: java.util.Set[Integer] = null): Unit = {
    val in = path.getFileSystem(conf).open(path)
    val reader = new BsupReader(in, path.toString, 0L, length)
    try {
      var seen = new java.util.BitSet()
      var stream = 0
      var n = 0L
      while ((opts.samplingValues < 0 || n < opts.samplingValues) && reader.next()) {
        if (reader.streamNumber != stream) { seen = new java.util.BitSet(); stream = reader.streamNumber }
        if (!seen.get(reader.typeId)) {
          seen.set(reader.typeId)
          types.add(reader.valueType)
          if (versions != null) versions.add(reader.context.version)
        }
        n += 1
      }
    } catch {
      case e: BsupException =>
        if (opts.isFailFast) throw BsupRowIterator.malformed(e)
      // Otherwise the types seen before the bad frame are used; reads report the error.
    } finally reader.close()
  }
}
