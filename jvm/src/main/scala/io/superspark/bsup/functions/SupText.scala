package io.superspark.bsup.functions

import io.superspark.bsup._

/**
 * Values of the generic model (see `Values.scala`) as Super JSON text (SUP) in the one-line
 * form SuperDB v0.1.0 prints (`super -f sup -S=false`): types that the text does not imply are
 * written as `::type` decorations (`1::int32`, `null::string`, `[]::[int64]`, `"a"::enum(a,b)`,
 * `80::(port=uint16)`), on the outermost value whose type is not implied. Primitive text is
 * [[ValueText]]'s.
 *
 * With `version` 1 or later the text is the SUP of the current SuperDB: sets and maps are
 * `set[...]` and `map{...}`, and a named type is decorated by its name alone (`80::port`), its
 * definition being SuperDB's separate `type port=uint16` declaration ([[namedTypes]]).
 */
private[superspark] object SupText {
  /** True when the text of any value of `t` alone names `t` exactly. */
  def implied(t: SuperType): Boolean = t match {
    case p: PrimitiveType => p.id match {
      case SuperType.Int64 | SuperType.Float64 | SuperType.Bool | SuperType.Bytes | SuperType.String |
           SuperType.Ip | SuperType.Net | SuperType.Type | SuperType.Null | SuperType.Time | SuperType.Duration => true
      case _ => false
    }
    case RecordType(fields) => fields.forall(f => implied(f.typ))
    case ArrayType(e) => implied(e)
    case SetType(e) => implied(e)
    case MapType(k, v) => implied(k) && implied(v)
    case ErrorType(e) => implied(e)
    case _ => false
  }

  def format(t: SuperType, v: Any, version: Int = 0): String = {
    val sb = new java.lang.StringBuilder; append(sb, t, v, version); sb.toString
  }

  def append(sb: java.lang.StringBuilder, t: SuperType, v: Any, version: Int = 0): Unit =
    new Printer(sb, version).value(t, v, decorate = true)

  /** The named types used in `t` as `type name=...` declarations of SUP version 1 on, inner first. */
  def namedTypes(t: SuperType, version: Int): Seq[String] = {
    val out = scala.collection.mutable.LinkedHashMap[String, String]()
    val visiting = new java.util.HashSet[String]()
    def loop(t: SuperType): Unit = t match {
      case NamedType(n, inner) =>
        // A recursive type reaches its own name again: declared once, when its parts are.
        if (visiting.add(n)) {
          loop(inner)
          if (!out.contains(n)) out(n) = s"type ${SuperType.formatName(n)}=${typeText(inner, version)}"
        }
      case r: RecursiveRef => loop(r.target)
      case RecordType(fs) => fs.foreach(f => loop(f.typ))
      case ArrayType(e) => loop(e)
      case SetType(e) => loop(e)
      case MapType(k, v) => loop(k); loop(v)
      case UnionType(ts) => ts.foreach(loop)
      case ErrorType(e) => loop(e)
      case FusionType(e) => loop(e)
      case _ =>
    }
    loop(t)
    out.values.toSeq
  }

  /** A type in the syntax of `version`; from version 1 a named type is its name. */
  def typeText(t: SuperType, version: Int): String =
    SuperType.format(t, version)

  private final class Printer(sb: java.lang.StringBuilder, version: Int) {
  private def decoration(t: SuperType): Unit = t match {
    case NamedType(n, _) if version > 0 => sb.append("::").append(SuperType.formatName(n))
    case r: RecursiveRef => decoration(r.target)
    case _: NamedType => sb.append("::(").append(t.toString).append(')')
    case _ => sb.append("::").append(typeText(t, version))
  }

  /** Appends `v`; `decorate`: the enclosing text does not already name `t`. */
  def value(t: SuperType, v: Any, decorate: Boolean): Unit = {
    if (v == null) {
      sb.append("null")
      if (decorate && t != SuperType.nullType) decoration(t)
      return
    }
    t match {
      case NamedType(_, inner) =>
        value(inner, v, decorate = false)
        if (decorate) decoration(t)
        return
      case r: RecursiveRef =>
        value(r.target, v, decorate)
        return
      case UnionType(ts) =>
        val u = v.asInstanceOf[UnionValue]
        value(ts(u.selector), u.value, decorate = true)
        if (decorate) decoration(t)
        return
      case _ =>
    }
    // Containers decorate themselves when their type is not implied; their parts need not.
    val self = decorate && (!implied(t) || emptyOfType(t, v))
    val inner = !self && decorate
    t match {
      case RecordType(fields) =>
        val vs = v.asInstanceOf[Seq[Any]]
        sb.append('{')
        fields.indices.foreach { i =>
          if (i > 0) sb.append(',')
          sb.append(SuperType.formatName(fields(i).name)).append(':')
          // Records are never decorated themselves: their fields carry the decorations.
          value(fields(i).typ, vs(i), decorate)
        }
        sb.append('}')
      case ArrayType(e) => list("[", "]", e, v.asInstanceOf[Seq[Any]], inner)
      case SetType(e) =>
        list(if (version > 0) "set[" else "|[", if (version > 0) "]" else "]|", e, v.asInstanceOf[Seq[Any]], inner)
      case MapType(k, x) =>
        sb.append(if (version > 0) "map{" else "|{")
        v.asInstanceOf[Seq[(Any, Any)]].zipWithIndex.foreach { case ((kk, vv), i) =>
          if (i > 0) sb.append(',')
          value(k, kk, inner); sb.append(':'); value(x, vv, inner)
        }
        sb.append(if (version > 0) "}" else "}|")
      case ErrorType(e) => sb.append("error("); value(e, v.asInstanceOf[ErrorValue].value, decorate); sb.append(')')
      case EnumType(symbols) => sb.append(quote(symbols(v.asInstanceOf[EnumValue].index)))
      case FusionType(e) => value(e, v.asInstanceOf[FusionValue].value, decorate)
      case p: PrimitiveType => primitive(sb, p, v)
      case _ =>
    }
    if (self && !t.isInstanceOf[ErrorType] && !t.isInstanceOf[RecordType]) decoration(t)
  }

  /** An empty container whose element type is not null: `[]` alone would be `[null]`. */
  private def emptyOfType(t: SuperType, v: Any): Boolean = t match {
    case ArrayType(e) => v.asInstanceOf[Seq[Any]].isEmpty && e != SuperType.nullType
    case SetType(e) => v.asInstanceOf[Seq[Any]].isEmpty && e != SuperType.nullType
    case MapType(k, x) => v.asInstanceOf[Seq[Any]].isEmpty && (k != SuperType.nullType || x != SuperType.nullType)
    case _ => false
  }

  private def list(open: String, close: String, e: SuperType, xs: Seq[Any], inner: Boolean): Unit = {
    sb.append(open)
    xs.zipWithIndex.foreach { case (x, i) => if (i > 0) sb.append(','); value(e, x, inner) }
    sb.append(close)
  }
  }

  private def quote(s: String): String = ValueText.format(SuperType.string, s)

  private def primitive(sb: java.lang.StringBuilder, p: PrimitiveType, v: Any): Unit = v match {
    case d: Double => sb.append(float(d))
    case f: Float => sb.append(float(f.toDouble))
    case Duration(ns) => sb.append(duration(ns))
    case Time(ns) => sb.append(time(ns))
    case IpNet(a, bits) => sb.append(ValueText.ip(a)).append('/').append(bits)
    case _ => sb.append(ValueText.format(p, v))
  }

  private def float(d: Double): String =
    if (d.isNaN) "NaN"
    else if (d.isPosInfinity) "+Inf"
    else if (d.isNegInfinity) "-Inf"
    else if (d == math.rint(d) && math.abs(d) < 1e21) {
      val s = java.math.BigDecimal.valueOf(d).toBigInteger.toString
      if (d == 0 && 1 / d < 0) "-0." else s + "."
    } else {
      val s = java.lang.Double.toString(d)
      // Java writes 1.0E-5 where Go writes 1e-05.
      val e = s.indexOf('E')
      if (e < 0) s
      else {
        val mant = s.substring(0, e).stripSuffix(".0")
        val exp = s.substring(e + 1).toInt
        f"${mant}e${if (exp < 0) "-" else "+"}${math.abs(exp)}%02d"
      }
    }

  /** Go's `time.Duration` text, as SuperDB prints durations (`1h2m3.5s`, `1.5ms`, `0s`). */
  def duration(ns: Long): String = {
    if (ns == 0) return "0s"
    val neg = ns < 0
    val u = BigInt(ns).abs
    val sb = new StringBuilder
    if (u < 1000000000L) {
      val (unit, scale) = if (u < 1000) ("ns", 1L) else if (u < 1000000) ("us", 1000L) else ("ms", 1000000L)
      sb.append(fraction(u, scale)).append(unit)
    } else {
      val h = u / BigInt(3600000000000L)
      val m = (u / BigInt(60000000000L)) % 60
      val s = u % BigInt(60000000000L)
      if (h > 0) sb.append(h).append('h')
      if (h > 0 || m > 0) sb.append(m).append('m')
      sb.append(fraction(s, 1000000000L)).append('s')
    }
    (if (neg) "-" else "") + sb.toString
  }

  private def fraction(u: BigInt, scale: Long): String = {
    val whole = u / scale
    val frac = u % scale
    if (frac == 0) whole.toString
    else {
      val digits = scale.toString.length - 1
      val f = frac.toString.reverse.padTo(digits, '0').reverse.replaceAll("0+$", "")
      s"$whole.$f"
    }
  }

  private def time(ns: Long): String = {
    val i = java.time.Instant.ofEpochSecond(Math.floorDiv(ns, 1000000000L), Math.floorMod(ns, 1000000000L))
    val text = java.time.format.DateTimeFormatter.ISO_INSTANT.format(i)
    // Go prints the shortest fraction (.5Z, not .500Z).
    if (text.contains('.')) text.replaceAll("0+Z$", "Z") else text
  }
}
