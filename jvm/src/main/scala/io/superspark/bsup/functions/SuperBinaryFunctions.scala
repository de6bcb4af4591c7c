package io.superspark.bsup.functions

import io.superspark.expressions.FunctionDescriptions.{function, FunctionDescription}

/**
 * The Super Binary SQL functions (docs/sb-functions.md). A binary cell holds one Super Binary
 * stream carrying one value; see the docs for cells with several values or streams.
 */
private[superspark] object SuperBinaryFunctions {
  private val group = "misc_funcs"
  private val since = "0.1.0"

  private val binArg = "      * bin - a BINARY cell holding a Super Binary stream."
  private val schemaArg =
    "      * schema - a string literal: a Spark DDL schema (`a INT, b ARRAY<STRING>`) or a Super type\n" +
      "          (`{a:int64,b:[string]}`, mapped as the `bsup` data source maps it). Without it: VARIANT."
  private val optionsArg =
    "      * options - a map literal: `mode` FAILFAST (default: a malformed cell fails the query with\n" +
      "          its byte offset) or PERMISSIVE (a malformed cell gives NULL); `timeAsLong`,\n" +
      "          `durationAsInterval` as for the `bsup` data source."

  private def decode(name: String, all: Boolean, tryNull: Boolean): FunctionDescription = {
    val what = if (all) "every value of the Super Binary cell `bin`, as an array," else
      "the first value of the Super Binary cell `bin`"
    val tryText = if (tryNull) " A malformed cell gives NULL (whatever the mode)." else ""
    function[SbDecode](
      name = name,
      usage = s"_FUNC_(bin [, schema] [, options]) - Decodes $what as `schema` (VARIANT without one). " +
        s"NULL in, NULL out; an empty cell gives NULL.$tryText",
      arguments = Seq(binArg, schemaArg, optionsArg).mkString("\n"),
      examples =
        s"""
          |    > SELECT _FUNC_(sb_encode(named_struct('a', 1L, 'b', array('x'))), '{a:int64,b:[string]}');
          |     ${if (all) "[{1, [x]}]" else "{1, [x]}"}
          |    > SELECT _FUNC_(sb_encode(named_struct('a', 1L)), 'a BIGINT', map('mode', 'PERMISSIVE'));
          |     ${if (all) "[{1}]" else "{1}"}""".stripMargin,
      since = since, group = group, arity = Set(1, 2, 3))(SbDecode.build(name, all, tryNull))
  }

  private def inspect[T <: CellExpression : scala.reflect.ClassTag](name: String, tryNull: Boolean, usage: String,
      example: String, result: String)(make: (org.apache.spark.sql.catalyst.expressions.Expression, Boolean, String) => T)
      : FunctionDescription = {
    val failText = if (tryNull) " A malformed cell gives NULL." else " A malformed cell is an error."
    function[T](
      name = name,
      usage = s"_FUNC_(bin) - $usage NULL in, NULL out; an empty cell gives NULL.$failText",
      arguments = binArg,
      examples =
        s"""
          |    > SELECT _FUNC_($example);
          |     $result""".stripMargin,
      since = since, group = group, arity = Set(1))(args => make(args.head, !tryNull, name))
  }

  private val example = "sb_encode(named_struct('a', 1L, 'b', 'x'))"

  val all: Seq[FunctionDescription] = Seq(
    decode("sb_decode", all = false, tryNull = false),
    decode("try_sb_decode", all = false, tryNull = true),
    decode("sb_decode_all", all = true, tryNull = false),
    decode("try_sb_decode_all", all = true, tryNull = true),
    function[SbEncode](
      name = "sb_encode",
      usage = "_FUNC_(expr [, options]) - Encodes `expr` as a Super Binary stream holding one value: its Super " +
        "type is the one kept in the column's `super.type` metadata, else the default mapping of its Spark type. " +
        "NULL in, NULL out.",
      arguments = "      * expr - a value of any type with a Super type mapping (not intervals of months).\n" +
        "      * options - a map literal: `version` 0 (default: Super Binary version 0, as SuperDB v0.1.0\n" +
        "          writes it) or 5 (a version byte 0x85 before each frame, as current SuperDB writes it).",
      examples =
        """
          |    > SELECT hex(_FUNC_(1L));
          |     1300090202FF
          |    > SELECT sb_to_sup(_FUNC_(named_struct('a', 1, 'b', 'x')));
          |     {a:1::int32,b:"x"}
          |    > SELECT hex(_FUNC_(1L, map('version', '5')));
          |     85130009028502FF""".stripMargin,
      since = since, group = group, arity = Set(1, 2))(SbEncode.build),
    inspect("sb_typeof", tryNull = false, "Returns the type of the cell's first value in Super type syntax.",
      example, "{a:int64,b:string}")(SbTypeOf),
    inspect("try_sb_typeof", tryNull = true, "Returns the type of the cell's first value in Super type syntax.",
      example, "{a:int64,b:string}")(SbTypeOf),
    inspect("sb_to_sup", tryNull = false,
      "Returns the cell's values as Super JSON text (SUP, as SuperDB v0.1.0 writes it), one line per value.",
      example, "{a:1,b:\"x\"}")(SbToSup),
    inspect("try_sb_to_sup", tryNull = true,
      "Returns the cell's values as Super JSON text (SUP, as SuperDB v0.1.0 writes it), one line per value.",
      example, "{a:1,b:\"x\"}")(SbToSup),
    inspect("sb_schema_of", tryNull = false,
      "Returns the Spark DDL type `sb_decode` gives the cell's first value (usable as its schema).",
      example, "STRUCT<a: BIGINT, b: STRING>")(SbSchemaOf),
    inspect("try_sb_schema_of", tryNull = true,
      "Returns the Spark DDL type `sb_decode` gives the cell's first value (usable as its schema).",
      example, "STRUCT<a: BIGINT, b: STRING>")(SbSchemaOf)
  )
}
