import java.io.File;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/**
 * The HDFS of the store suites (dev/stores/start.sh): a mini-cluster (one name node, one data
 * node) on 127.0.0.1:PORT keeping its blocks under DIR, with permissions off so any local user
 * can write. Prints "SUPERSPARK_HDFS_URI=hdfs://127.0.0.1:PORT" once it serves, then runs until
 * it is killed. Usage: MiniHdfs DIR PORT
 */
public class MiniHdfs {
  public static void main(String[] args) throws Exception {
    Configuration conf = new Configuration();
    File dir = new File(args[0]);
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, dir.getAbsolutePath());
    conf.setBoolean("dfs.permissions.enabled", false);
    conf.set("dfs.namenode.http-address", "127.0.0.1:0");
    conf.set("dfs.datanode.address", "127.0.0.1:0");
    conf.set("dfs.datanode.http.address", "127.0.0.1:0");
    conf.set("dfs.datanode.ipc.address", "127.0.0.1:0");
    MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf)
        .nameNodePort(Integer.parseInt(args[1])).numDataNodes(1).format(true).build();
    cluster.waitActive();
    Runtime.getRuntime().addShutdownHook(new Thread(cluster::shutdown));
    System.out.println("SUPERSPARK_HDFS_URI=hdfs://127.0.0.1:" + cluster.getNameNodePort());
    System.out.flush();
    Thread.currentThread().join();
  }
}
