package io.superspark.bsup

import io.superspark.bsup.spark._
import org.apache.hadoop.conf.Configuration
import org.apache.hadoop.fs.Path

object ReproTmp2 {
  def main(args: Array[String]): Unit = {
    val Array(name, op, at, x) = args
    val b = BsupFuzz.seeds().find(_.name == name).get.bytes.clone()
    if (op == "flip") b(at.toInt) = (b(at.toInt) ^ (1 << x.toInt)).toByte else b(at.toInt) = Integer.parseInt(x, 16).toByte
    val f = java.io.File.createTempFile("repro", ".bsup"); java.nio.file.Files.write(f.toPath, b)
    val r = new BsupReader(new java.io.ByteArrayInputStream(b), "x", 0, b.length)
    var i = 0
    try while (r.next()) { val v = r.value(); println(s"value $i: ${v.typ} = ${v.value}"); i += 1 } catch { case e: BsupException => println("ERR " + e.getMessage) }
    val opts = new BsupOptions(Map.empty[String, String], "_corrupt_record")
    val schema = BsupInference.inferSchema(Seq((new Path(f.getAbsolutePath), b.length.toLong)), new Configuration(), opts).get
    schema.fields.foreach(x => println(s"${x.name}: ${x.dataType.catalogString} ${x.metadata.json}"))
    val w5 = new BsupOptions(Map("version" -> "5", "decimalAs" -> "string", "compression" -> "none", "superdbReadable" -> "false"), "_c")
    println(BsupOutputWriter.recordType(org.apache.spark.sql.types.StructType(schema.fields.init), w5))
  }
}
