import java.nio.file.Files;
import java.nio.file.Paths;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/**
 * `make check-hdfs`: the footer tools on hdfs:// paths of an HDFS mini-cluster (Hadoop 3.5.0's
 * hadoop-minicluster, in a JVM of its own: its unshaded Hadoop jars cannot share the test classpath with
 * pyspark's shaded client). migrate to final (rename with OVERWRITE), verify, migrate back to plain: the
 * original bytes, and no temporary files left. Exits 1 on any difference.
 */
public class HdfsFooterCheck {
  public static void main(String[] args) throws Exception {
    long t0 = System.nanoTime();
    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, Files.createTempDirectory("minidfs").toString());
    MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf).numDataNodes(1).build();
    boolean ok = true;
    try {
      FileSystem fs = cluster.getFileSystem();
      System.out.printf("mini-cluster started in %.1f s: %s%n", (System.nanoTime() - t0) / 1e9, fs.getUri());
      Path file = new Path("/t/part-0.parquet");
      byte[] original = Files.readAllBytes(Paths.get(args[0]));
      try (FSDataOutputStream out = fs.create(file)) { out.write(original); }
      java.util.List<String> table = java.util.List.of(fs.getUri() + "/t");
      String migrated = io.superspark.parquet.footer.tools.FooterTool.migrate(table, null, "final");
      String verified = io.superspark.parquet.footer.tools.FooterTool.verify(table);
      String back = io.superspark.parquet.footer.tools.FooterTool.migrate(table, null, "plain");
      System.out.println(migrated + "\n" + verified + "\n" + back);
      ok &= migrated.contains("\"status\":\"migrated\"") && migrated.contains("\"replace\":\"rename\"");
      ok &= verified.contains("\"status\":\"valid\"") && back.contains("\"status\":\"migrated\"");
      byte[] now = new byte[(int) fs.getFileStatus(file).getLen()];
      try (FSDataInputStream in = fs.open(file)) { in.readFully(0, now); }
      ok &= java.util.Arrays.equals(now, original);
      FileStatus[] listed = fs.listStatus(new Path("/t"));
      ok &= listed.length == 1;
      System.out.println("plain again is the original: " + java.util.Arrays.equals(now, original) +
          "; files in /t: " + listed.length);
    } finally {
      cluster.shutdown();
    }
    System.out.println(ok ? "hdfs check: ok" : "hdfs check: FAILED");
    System.exit(ok ? 0 : 1);
  }
}
