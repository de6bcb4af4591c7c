package io.superspark.parquet.footer

import java.io.ByteArrayInputStream

import shaded.parquet.org.apache.thrift.TConfiguration
import shaded.parquet.org.apache.thrift.protocol.{TCompactProtocol, TProtocolUtil}
import shaded.parquet.org.apache.thrift.transport.TIOStreamTransport

/**
 * Top-level fields of a Thrift compact struct, skipped without building objects: used to
 * find an existing field 32767 (read back by a compact reader as id -16384, see
 * docs/parquet-footer.md) so that `add` never stacks a second extension.
 */
object ThriftFields {

  /** Field ids a Thrift compact reader sees for the spec's `08 FF FF 01` header. */
  val ExtensionFieldIds: Set[Short] = Set(32767.toShort, (-16384).toShort)

  // TType values (the shaded parquet-format jar leaves the TType class out).
  private val Stop: Byte = 0
  private val Binary: Byte = 11

  def hasExtensionField(struct: Array[Byte]): Boolean = extensionField(struct).isDefined

  /**
   * Where a top-level field 32767 (binary) starts, and whether it is the struct's last field
   * (then the struct without it is its bytes before the field plus a stop byte).
   */
  def extensionField(struct: Array[Byte]): Option[(Int, Boolean)] = {
    val conf = new TConfiguration(Int.MaxValue, TConfiguration.DEFAULT_MAX_FRAME_SIZE,
      TConfiguration.DEFAULT_RECURSION_DEPTH)
    val in = new ByteArrayInputStream(struct)
    val protocol = new TCompactProtocol(new TIOStreamTransport(conf, in))
    protocol.readStructBegin()
    var found: Option[Int] = None
    var last = false
    var done = false
    while (!done) {
      val at = struct.length - in.available()
      val field = protocol.readFieldBegin()
      if (field.`type` == Stop) done = true
      else {
        last = false
        if (field.`type` == Binary && ExtensionFieldIds(field.id)) { found = Some(at); last = true }
        TProtocolUtil.skip(protocol, field.`type`)
      }
    }
    found.map(at => (at, last))
  }
}
