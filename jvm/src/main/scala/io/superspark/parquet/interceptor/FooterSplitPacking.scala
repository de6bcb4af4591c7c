package io.superspark.parquet.interceptor

import scala.collection.mutable.ArrayBuffer

import org.apache.spark.rdd.{PartitionCoalescer, PartitionGroup, RDD}
import org.apache.spark.sql.catalyst.InternalRow
import org.apache.spark.sql.execution.datasources.{FilePartition, FileScanRDD, PartitionedFile}
import org.apache.spark.sql.internal.SQLConf

/**
 * Packs a scan's splits into tasks by the bytes each task reads from its files.
 *
 * Spark packs a file scan's splits into tasks of up to `spark.sql.files.maxPartitionBytes`
 * (plus `spark.sql.files.openCostInBytes` a file), counting each split's whole length. A task
 * of the footer library reads none of a file's footer bytes when the footer cache holds that
 * footer: of a 10,000-column file of 70 MB, 20 MB of data, Spark would put one file in a task
 * of 128 MB where three or more fit by what is read, and a scan pays the cost of a task (its
 * plan and the table's schema deserialized, its reader set up) for each file.
 *
 * Here each of Spark's partitions weighs what its splits read: a split's bytes before the
 * data's end ([[FooterCache.dataEnd]]) when the cache holds the file's footer, else its length
 * as Spark counts it. Spark's partitions, in Spark's order (largest first), are joined next-fit
 * into groups of at most Spark's own split size computed over these weights
 * (`min(maxPartitionBytes, max(openCost, total / minPartitionNum))`), and the scan's RDD becomes
 * Spark's `coalesce` of its own without a shuffle, one task a group. Only a scan whose groups are
 * fewer than Spark's partitions is changed; its files, splits, and the order a task reads them
 * in are Spark's. Bucketed scans, whose partitions are buckets, are never passed here.
 */
private[superspark] object FooterSplitPacking {

  /** `rdd` packed, or itself when it is not a file scan or no two of its partitions join. */
  def pack(rdd: RDD[InternalRow], conf: SQLConf, defaultParallelism: => Int): RDD[InternalRow] = rdd match {
    case scan: FileScanRDD =>
      val parts = scan.filePartitions.toIndexedSeq
      val openCost = conf.filesOpenCostInBytes
      val weights = parts.map(_.files.map(weight).sum)
      val minPartitions = conf.filesMinPartitionNum.getOrElse(
        conf.getConf(SQLConf.LEAF_NODE_DEFAULT_PARALLELISM).getOrElse(defaultParallelism))
      val total = parts.iterator.map(p => p.files.length * openCost).sum + weights.sum
      val maxSplit = math.min(conf.filesMaxPartitionBytes, math.max(openCost, total / math.max(1, minPartitions)))
      val groups = packed(parts.map(_.files.length), weights, openCost, maxSplit)
      if (groups.length >= parts.length) scan
      else scan.coalesce(groups.length, shuffle = false, Some(new Groups(groups, groups.map(hostOf(parts, _)))))
    case other => other
  }

  /** What a split reads: its bytes before the data's end when the footer is cached, else all. */
  private def weight(file: PartitionedFile): Long =
    FooterCache.dataEnd(file.toPath.toString, file.fileSize) match {
      case Some(end) => math.max(0L, math.min(file.start + file.length, end) - file.start)
      case None => file.length
    }

  /**
   * Partitions of `files` files and `weights` bytes joined in order, next-fit: a partition joins
   * the current group while the group's weights and open costs stay within `maxSplit`.
   */
  private[interceptor] def packed(files: Seq[Int], weights: Seq[Long], openCost: Long, maxSplit: Long): Array[Array[Int]] = {
    val groups = ArrayBuffer.empty[Array[Int]]
    val current = ArrayBuffer.empty[Int]
    var size = 0L
    for (i <- weights.indices) {
      val cost = weights(i) + files(i) * openCost
      if (current.nonEmpty && size + cost > maxSplit) {
        groups += current.toArray
        current.clear()
        size = 0L
      }
      current += i
      size += cost
    }
    if (current.nonEmpty) groups += current.toArray
    groups.toArray
  }

  /** The host that holds most of a group's bytes, as Spark's file partitions name them. */
  private def hostOf(parts: IndexedSeq[FilePartition], group: Array[Int]): Option[String] = {
    val bytes = group.iterator.flatMap(i => parts(i).files).flatMap(f => f.locations.iterator.map(_ -> f.length))
      .toSeq.groupMapReduce(_._1)(_._2)(_ + _)
    if (bytes.isEmpty) None else Some(bytes.maxBy(_._2)._1)
  }

  /** The groups as Spark's coalesce takes them: the parent's partitions by index. */
  private final class Groups(groups: Array[Array[Int]], hosts: Array[Option[String]])
    extends PartitionCoalescer with Serializable {
    override def coalesce(maxPartitions: Int, parent: RDD[_]): Array[PartitionGroup] =
      groups.indices.map { g =>
        val group = new PartitionGroup(hosts(g))
        groups(g).foreach(i => group.partitions += parent.partitions(i))
        group
      }.toArray
  }
}
