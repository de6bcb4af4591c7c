package io.superspark.bsup

/**
 * The rules that differ between Super Binary versions (see docs/bsup-versions.md). Version 0
 * frames start with a code byte whose bit 7 is clear; later versions put `0x80 | version`
 * before every frame. This reader knows versions 0 and 5; versions 1 to 4 are refused by name.
 */
private[superspark] object BsupVersion {
  final val Latest = 5

  /** The versions this project reads and writes. */
  def isSupported(v: Int): Boolean = v == 0 || v == Latest

  /** Why `v` cannot be read, or None when it can. */
  def unsupportedReason(v: Int): Option[String] =
    if (isSupported(v)) None
    else if (v > Latest) Some(s"Super Binary version $v is newer than the versions this reader knows (0 to $Latest)")
    else Some(s"Super Binary version $v (written by SuperDB between v0.2.0 and May 2026) is not supported: " +
      "only versions 0 and 5 are read (docs/bsup-versions.md says why)")

  /** The first stream-local id of a complex type. */
  def firstComplexId(v: Int): Int = if (v >= 3) 32 else if (v == 2) 31 else 30

  /** The type-value code of a record; the other complex codes follow it (see [[TypeValues]]). */
  def typeValueBase(v: Int): Int = firstComplexId(v)

  /** Union selectors: zig-zag signed in version 0, unsigned from version 1. */
  def unsignedSelector(v: Int): Boolean = v >= 1

  /** The version byte written before each frame (none in version 0). */
  def frameByte(v: Int): Int = 0x80 | v

  /** The primitive type of `id` in version `v`, or null when `id` is a complex id there. */
  def primitive(v: Int, id: Int): PrimitiveType =
    if (id < SuperType.FirstComplexId) SuperType.primitive(id)
    else if (v >= 2 && id == SuperType.NoneId) SuperType.none
    else if (v >= 3 && id == SuperType.AllId) SuperType.all
    else null

  /**
   * Checks the version `v` of a frame: the first frame of a stream sets the version of
   * `context`; every later frame of the stream must have the same one.
   */
  def checkFrame(v: Int, streamStart: Boolean, context: TypeContext, fail: String => Nothing): Unit = {
    if (streamStart) {
      unsupportedReason(v).foreach(fail)
      context.version = v
    } else if (v != context.version) {
      fail(s"Super Binary version changes from ${context.version} to $v inside a stream")
    }
  }
}
