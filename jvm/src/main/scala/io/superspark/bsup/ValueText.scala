package io.superspark.bsup

import java.net.InetAddress

/** Text forms of ip and net values (as SuperDB prints them) and their parsers. */
private[superspark] object ValueText {
  def ip(a: InetAddress): String = ipBytes(a.getAddress, 0, a.getAddress.length)

  /** Formats 4 or 16 address bytes: dotted quad, or RFC 5952 IPv6 text. */
  def ipBytes(b: Array[Byte], off: Int, len: Int): String = {
    if (len == 4) {
      s"${b(off) & 0xff}.${b(off + 1) & 0xff}.${b(off + 2) & 0xff}.${b(off + 3) & 0xff}"
    } else {
      val words = Array.tabulate(8)(i => ((b(off + 2 * i) & 0xff) << 8) | (b(off + 2 * i + 1) & 0xff))
      // IPv4-mapped addresses print with a dotted tail, like Go's netip.
      if (words.take(5).forall(_ == 0) && words(5) == 0xffff) {
        return "::ffff:" + ipBytes(b, off + 12, 4)
      }
      var bestStart = -1; var bestLen = 0; var i = 0
      while (i < 8) {
        if (words(i) == 0) {
          var j = i
          while (j < 8 && words(j) == 0) j += 1
          if (j - i > bestLen && j - i >= 2) { bestStart = i; bestLen = j - i }
          i = j
        } else i += 1
      }
      val sb = new StringBuilder
      i = 0
      while (i < 8) {
        if (i == bestStart) {
          sb.append("::"); i += bestLen
        } else {
          if (sb.nonEmpty && sb.last != ':') sb.append(':')
          sb.append(Integer.toHexString(words(i))); i += 1
        }
      }
      sb.toString
    }
  }

  /** Parses an IPv4 or IPv6 address (no host names, no zones); None when it is not one. */
  def parseIp(s: String): Option[Array[Byte]] =
    if (s.indexOf(':') >= 0) parseIpv6(s) else parseIpv4(s)

  private def parseIpv4(s: String): Option[Array[Byte]] = {
    val parts = s.split("\\.", -1)
    if (parts.length != 4) return None
    val out = new Array[Byte](4)
    var i = 0
    while (i < 4) {
      val p = parts(i)
      if (p.isEmpty || p.length > 3 || !p.forall(c => c >= '0' && c <= '9')) return None
      if (p.length > 1 && p.charAt(0) == '0') return None
      val v = p.toInt
      if (v > 255) return None
      out(i) = v.toByte; i += 1
    }
    Some(out)
  }

  private def parseIpv6(s: String): Option[Array[Byte]] = {
    val dbl = s.indexOf("::")
    if (dbl >= 0 && s.indexOf("::", dbl + 1) >= 0) return None
    def groups(part: String): Option[Seq[Array[Byte]]] =
      if (part.isEmpty) Some(Nil)
      else {
        val gs = part.split(":", -1).toSeq
        val out = gs.zipWithIndex.map { case (g, idx) =>
          if (idx == gs.length - 1 && g.contains('.')) parseIpv4(g)
          else if (g.nonEmpty && g.length <= 4 && g.forall(c => Character.digit(c, 16) >= 0)) {
            val v = Integer.parseInt(g, 16); Some(Array((v >> 8).toByte, v.toByte))
          } else None
        }
        if (out.forall(_.isDefined)) Some(out.map(_.get)) else None
      }
    val (head, tail) = if (dbl >= 0) (s.substring(0, dbl), s.substring(dbl + 2)) else (s, "")
    for {
      h <- groups(head)
      t <- groups(tail)
      hb = h.flatten.toArray
      tb = t.flatten.toArray
      if (dbl >= 0 && hb.length + tb.length <= 14) || (dbl < 0 && hb.length == 16)
    } yield {
      val out = new Array[Byte](16)
      System.arraycopy(hb, 0, out, 0, hb.length)
      System.arraycopy(tb, 0, out, 16 - tb.length, tb.length)
      out
    }
  }

  /**
   * The prefix length of net bytes (address then mask, 8 or 32 bytes), or -1 when they are not
   * a network: the mask is not a prefix (ones then zeros), or the address has bits outside it.
   * Such bytes are malformed: no writer makes them, and `addr/prefix` could not say them.
   */
  def netPrefixLength(b: Array[Byte], off: Int, len: Int): Int = {
    val half = len / 2
    var ones = 0; var i = 0; var zeros = false
    while (i < half) {
      val m = b(off + half + i) & 0xff
      if (zeros && m != 0) return -1
      val n = Integer.numberOfLeadingZeros(~(m << 24)) min 8
      if (((0xff << (8 - n)) & 0xff) != m) return -1
      if ((b(off + i) & ~m & 0xff) != 0) return -1
      ones += n
      if (n < 8) zeros = true
      i += 1
    }
    ones
  }

  /** Formats net bytes (a network: see [[netPrefixLength]]) as `addr/prefix`. */
  def netBytes(b: Array[Byte], off: Int, len: Int, prefixLength: Int): String =
    ipBytes(b, off, len / 2) + "/" + prefixLength

  /** Parses `addr/prefix` to address-then-mask bytes (the address is masked). */
  def parseNet(s: String): Option[Array[Byte]] = {
    val slash = s.lastIndexOf('/')
    if (slash < 0) return None
    val bitsText = s.substring(slash + 1)
    if (bitsText.isEmpty || bitsText.length > 3 || !bitsText.forall(_.isDigit)) return None
    parseIp(s.substring(0, slash)).flatMap { addr =>
      val bits = bitsText.toInt
      if (bits > addr.length * 8) None
      else {
        val out = new Array[Byte](addr.length * 2)
        var i = 0
        while (i < addr.length) {
          val keep = math.max(0, math.min(8, bits - 8 * i))
          val m = if (keep == 0) 0 else (0xff << (8 - keep)) & 0xff
          out(addr.length + i) = m.toByte
          out(i) = (addr(i) & m).toByte
          i += 1
        }
        Some(out)
      }
    }
  }

  /**
   * A value of the generic model (see `Values.scala`) in SUP-like text: `{a:1,b:"x"}`,
   * `[1,2]`, `|["a"]|`, `|{"k":1}|`, `2024-01-02T03:04:05Z`, `10.0.0.1`, `0x00ff`, `<int64>`,
   * `error("boom")`, `null`.
   */
  def format(t: SuperType, v: Any): String = {
    val sb = new java.lang.StringBuilder
    def str(x: String): Unit = {
      sb.append('"')
      x.foreach {
        case '"' => sb.append("\\\"")
        case '\\' => sb.append("\\\\")
        case '\n' => sb.append("\\n")
        case c if c < 0x20 => sb.append("\\u%04x".format(c.toInt))
        case c => sb.append(c)
      }
      sb.append('"')
    }
    def list(open: String, close: String, xs: Seq[Any], f: Any => Unit): Unit = {
      sb.append(open)
      xs.zipWithIndex.foreach { case (x, i) => if (i > 0) sb.append(','); f(x) }
      sb.append(close)
    }
    def loop(t: SuperType, v: Any): Unit = if (v == null) sb.append("null") else t match {
      case NamedType(_, inner) => loop(inner, v)
      case r: RecursiveRef => loop(r.target, v)
      case ErrorType(inner) => sb.append("error("); loop(inner, v.asInstanceOf[ErrorValue].value); sb.append(')')
      case RecordType(fields) =>
        val vs = v.asInstanceOf[Seq[Any]]
        sb.append('{')
        fields.indices.foreach { i =>
          if (i > 0) sb.append(',')
          sb.append(SuperType.formatName(fields(i).name)).append(':')
          loop(fields(i).typ, vs(i))
        }
        sb.append('}')
      case ArrayType(e) => list("[", "]", v.asInstanceOf[Seq[Any]], loop(e, _))
      case SetType(e) => list("|[", "]|", v.asInstanceOf[Seq[Any]], loop(e, _))
      case MapType(k, x) =>
        list("|{", "}|", v.asInstanceOf[Seq[(Any, Any)]], e => {
          val (kk, vv) = e.asInstanceOf[(Any, Any)]; loop(k, kk); sb.append(':'); loop(x, vv)
        })
      case UnionType(ts) => val u = v.asInstanceOf[UnionValue]; loop(ts(u.selector), u.value)
      case FusionType(inner) => loop(inner, v.asInstanceOf[FusionValue].value)
      case EnumType(symbols) => sb.append(symbols(v.asInstanceOf[EnumValue].index))
      case _: PrimitiveType => v match {
        case x: String => str(x)
        case Time(ns) =>
          sb.append(java.time.Instant.ofEpochSecond(Math.floorDiv(ns, 1000000000L), Math.floorMod(ns, 1000000000L)))
        case Duration(ns) => sb.append(ns).append("ns")
        case b: Bytes => sb.append("0x"); b.bytes.foreach(x => sb.append(f"${x & 0xff}%02x"))
        case a: InetAddress => sb.append(ip(a))
        case st: SuperType => sb.append('<').append(st.toString).append('>')
        case other => sb.append(other)
      }
    }
    loop(t, v)
    sb.toString
  }
}
