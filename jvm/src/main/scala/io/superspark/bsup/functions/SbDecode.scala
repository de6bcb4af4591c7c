package io.superspark.bsup.functions

import scala.util.control.NonFatal

import io.superspark.bsup.SuperType
import io.superspark.bsup.spark.{BsupOptions, SparkReaders}
import io.superspark.bsup.spark.SuperTypes
import org.apache.spark.sql.AnalysisException
import org.apache.spark.sql.catalyst.expressions.{ExprUtils, Expression}
import org.apache.spark.sql.catalyst.util.{FailFastMode, GenericArrayData, PermissiveMode}
import org.apache.spark.sql.types.{ArrayType, DataType, MapType, StringType, VariantType}

/**
 * `sb_decode(bin [, schema [, options]])` and `sb_decode_all`: the first value of the cell
 * (or all its values, as an array) as `target`, converted by the data source's value readers.
 * `all` selects `sb_decode_all`; `failFast` comes from the `mode` option (FAILFAST by
 * default, PERMISSIVE with the `try_` forms).
 */
private[superspark] case class SbDecode(
    child: Expression,
    target: DataType,
    options: Map[String, String],
    all: Boolean,
    failFast: Boolean,
    name: String) extends CellExpression {

  override def dataType: DataType = if (all) ArrayType(target, containsNull = true) else target
  override def prettyName: String = name

  @transient private lazy val typeOptions = SbDecode.parseOptions(options, name)._2
  // sb_decode's records fill one reused row per reader: the caller copies the result before the
  // next row (projections write it into their UnsafeRow; collecting aggregates copy their
  // values). A struct of flat fields is written straight into an UnsafeRow, which projections
  // copy in one block; others fill a typed row (a SpecificInternalRow, no boxing), as
  // from_avro's deserializer does. sb_decode_all's records, several in one array, are rows of
  // their own.
  @transient private lazy val readers = ReaderCache.readers { t =>
    val r = SparkReaders.compile(t, target, typeOptions, reuseRows = !all)
    if (all) r else SparkReaders.toUnsafe(r, target)
  }

  private def current(): Any =
    if (decoder.valueLength < 0) null
    else readers.get(decoder).read(currentSrc(), decoder.valueOffset, decoder.valueLength)

  // sb_decode reads the first value through `first`, which resets the decoder itself.
  override protected def resetsDecoder: Boolean = all

  override protected def decode(cell: Array[Byte]): Any =
    if (!all) {
      if (decoder.first(cell)) current() else null
    } else {
      val out = new java.util.ArrayList[Any](1)
      while (decoder.next()) out.add(current())
      new GenericArrayData(out.toArray)
    }

  override protected def withNewChildInternal(newChild: Expression): SbDecode = copy(child = newChild)
}

private[superspark] object SbDecode {
  /** The mode (true: FAILFAST) and type options of an options map. */
  def parseOptions(options: Map[String, String], function: String): (Boolean, SuperTypes.Options) = {
    val opts = new BsupOptions(options, "_corrupt_record")
    val failFast = options.keys.exists(_.equalsIgnoreCase("mode")) match {
      case false => true
      case true => opts.parseMode match {
        case FailFastMode => true
        case PermissiveMode => false
        case other => throw new AnalysisException(
          errorClass = "PARSE_MODE_UNSUPPORTED",
          messageParameters = Map("funcName" -> s"`$function`", "mode" -> other.name))
      }
    }
    (failFast, opts.typeOptions)
  }

  /** The Spark type named by a schema argument: a Super type (`{a:int64}`) or a DDL string. */
  def parseSchema(text: String, typeOptions: SuperTypes.Options): DataType = {
    val superType =
      try Some(SuperType.parse(text)) catch { case _: IllegalArgumentException => None }
    superType.map(SuperTypes.toSpark(_, typeOptions)).getOrElse {
      try DataType.fromDDL(text) catch {
        case NonFatal(e) => throw new AnalysisException(
          errorClass = "INVALID_SCHEMA.PARSE_ERROR",
          messageParameters = Map("inputSchema" -> s"'$text'",
            "reason" -> s"neither a Super type nor a Spark DDL schema (${e.getMessage.linesIterator.next()})"))
      }
    }
  }

  private def schemaArg(e: Expression): String = e.dataType match {
    case _: StringType if e.foldable && e.eval() != null => e.eval().toString
    case _ => throw new AnalysisException(
      errorClass = "INVALID_SCHEMA.NON_STRING_LITERAL",
      messageParameters = Map("inputSchema" -> e.sql))
  }

  /** Builds the expression from a function call's arguments (bin [, schema [, options]]). */
  def build(name: String, all: Boolean, tryNull: Boolean)(args: Seq[Expression]): SbDecode = {
    // sb_decode(bin, options) reads as VARIANT with options.
    val (schema, optionsArg) = args.drop(1) match {
      case Seq(m) if m.resolved && m.dataType.isInstanceOf[MapType] => (None, Some(m))
      case rest => (rest.headOption, rest.drop(1).headOption)
    }
    val options = optionsArg.map(ExprUtils.convertToMapData).getOrElse(Map.empty[String, String])
    val (failFast, typeOptions) = parseOptions(options, name)
    val target = schema.map(s => parseSchema(schemaArg(s), typeOptions)).getOrElse(VariantType)
    SbDecode(args.head, target, options, all, failFast && !tryNull, name)
  }
}
