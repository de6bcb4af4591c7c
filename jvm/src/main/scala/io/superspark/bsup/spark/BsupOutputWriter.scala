package io.superspark.bsup.spark

import io.superspark.bsup.{BsupWriter, NamedType, PrimitiveType, RecordType, SuperType, UnionType}
import org.apache.hadoop.fs.Path
import org.apache.hadoop.mapreduce.TaskAttemptContext
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.{OutputWriter, OutputWriterFactory}
import org.apache.spark.sql.types.StructType

/** Writes one `.bsup` file: each row a record value of the schema's Super type. */
private[superspark] final class BsupOutputWriter(val path: String, schema: StructType, options: BsupOptions, context: TaskAttemptContext)
  extends OutputWriter {

  private val recordType = BsupOutputWriter.recordType(schema, options)
  private val rowWriter =
    new SparkWriters.StructWriter(recordType, schema, WriteConf.forWrite(options.version, options.superdbReadable))
  private val out = {
    val p = new Path(path)
    p.getFileSystem(context.getConfiguration).create(p, false)
  }
  private val writer = new BsupWriter(out, options.writerOptions)

  override def write(row: InternalRow): Unit = {
    val buf = writer.startValue(recordType)
    rowWriter.writeStruct(row, buf)
    writer.finishValue()
  }

  override def close(): Unit = writer.close()
}

private[superspark] object BsupOutputWriter {
  /**
   * The record type rows of `schema` are written as ([[SuperTypes.writeType]] of each column).
   * Unless `superdbReadable=false`, a column holding a type SuperDB does not implement fails
   * here, on the driver (the spec's decimals too, unless `decimalAs=spec` asked for them).
   */
  def recordType(schema: StructType, options: BsupOptions): RecordType = {
    val rt = columnTypes(schema, options)
    if (options.version > 0) nameRedefinition(rt).foreach { case (f, name, first, again) =>
      throw BsupErrors.nameRedefined(f.name, f.typ, schema(f.name).dataType, name, first, again)
    }
    rt
  }

  /**
   * Version 5 gives a name one type in a stream, and a row is written with one type: the first
   * column whose type uses a name with another type than an earlier use (a kept Super type from
   * a version 0 stream, which may redefine names), as (column, name, first type, other type).
   */
  private def nameRedefinition(rt: RecordType): Option[(io.superspark.bsup.Field, String, SuperType, SuperType)] = {
    val names = new java.util.HashMap[String, SuperType]()
    val seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap[SuperType, java.lang.Boolean]())
    def clash(t: SuperType): Option[(String, SuperType, SuperType)] =
      if (!seen.add(t)) None
      else t match {
        case NamedType(n, inner) =>
          val first = names.putIfAbsent(n, inner)
          if (first != null && first != inner) Some((n, first, inner)) else clash(inner)
        case RecordType(fs) => fs.iterator.map(f => clash(f.typ)).collectFirst { case Some(c) => c }
        case io.superspark.bsup.ArrayType(e) => clash(e)
        case io.superspark.bsup.SetType(e) => clash(e)
        case io.superspark.bsup.MapType(k, v) => clash(k).orElse(clash(v))
        case UnionType(ms) => ms.iterator.map(clash).collectFirst { case Some(c) => c }
        case io.superspark.bsup.ErrorType(e) => clash(e)
        case io.superspark.bsup.FusionType(e) => clash(e)
        case _ => None
      }
    rt.fields.iterator.map(f => clash(f.typ).map { case (n, a, b) => (f, n, a, b) }).collectFirst { case Some(c) => c }
  }

  private def columnTypes(schema: StructType, options: BsupOptions): RecordType =
    RecordType(schema.fields.map { f =>
      val t = SuperTypes.writeType(f, options.version, options.decimalAs)
      if (options.superdbReadable) SuperTypes.superdbUnreadable(t).foreach { u =>
        val asked = options.decimalAs == SuperTypes.DecimalForm.Spec &&
          u.asInstanceOf[PrimitiveType].id >= SuperType.Decimal32 && u.asInstanceOf[PrimitiveType].id <= SuperType.Decimal256
        if (!asked) throw BsupErrors.unreadableType(f.name, t, f.dataType, u)
      }
      io.superspark.bsup.Field(f.name, t)
    }.toIndexedSeq)
}

private[superspark] final class BsupOutputWriterFactory(options: BsupOptions) extends OutputWriterFactory {
  override def getFileExtension(context: TaskAttemptContext): String = ".bsup"

  override def newInstance(path: String, dataSchema: StructType, context: TaskAttemptContext): OutputWriter =
    new BsupOutputWriter(path, dataSchema, options, context)
}
