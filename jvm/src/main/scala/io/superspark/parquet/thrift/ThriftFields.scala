package io.superspark.parquet.thrift

/**
 * Top-level fields of a Thrift compact struct, skipped without building objects: used to
 * find an existing field 32767 (read back by a compact reader as id -16384, see
 * docs/parquet-footer.md) so that `add` never stacks a second extension.
 */
private[superspark] object ThriftFields {

  /** Field ids a Thrift compact reader sees for the spec's `08 FF FF 01` header. */
  val ExtensionFieldIds: Set[Short] = Set(32767.toShort, (-16384).toShort)

  def hasExtensionField(struct: Array[Byte]): Boolean = extensionField(struct).isDefined

  /**
   * Where a top-level field 32767 (binary) starts, and whether it is the struct's last field
   * (then the struct without it is its bytes before the field plus a stop byte). Malformed
   * bytes raise [[MalformedThriftFooterException]].
   */
  def extensionField(struct: Array[Byte]): Option[(Int, Boolean)] = {
    val r = new ThriftCompactReader(struct)
    var found: Option[Int] = None
    var last = false
    r.structBegin()
    while (r.nextField()) {
      last = false
      if (r.fieldType == ThriftCompactWriter.Binary && ExtensionFieldIds(r.fieldId.toShort)) {
        found = Some(r.fieldAt)
        last = true
      }
      r.skip()
    }
    found.map(at => (at, last))
  }

  /** Whether the struct has a top-level field `id` (walked like [[extensionField]]). */
  def hasField(struct: Array[Byte], id: Int): Boolean = {
    val r = new ThriftCompactReader(struct)
    r.structBegin()
    while (r.nextField()) {
      if (r.fieldId == id) return true
      r.skip()
    }
    false
  }
}
