import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;

/**
 * What Azure's Hadoop connector (hadoop-azure) does against Azurite (dev/stores/azure-check.sh): for a
 * URI, each step of a small round trip (open the file system, mkdirs, create + write + close, status,
 * read, list, delete) as `STEP ok` or `STEP FAILED: <exception>: <first line>`. Settings as `key=value`
 * arguments after the URI. Exits 0 when every step passed.
 */
public class AzureProbe {
  interface Step { Object run() throws Exception; }

  static boolean ok = true;

  static Object step(String name, Step s) {
    try {
      Object r = s.run();
      System.out.println(name + " ok" + (r == null ? "" : ": " + r));
      return r;
    } catch (Throwable t) {
      ok = false;
      Throwable root = t;
      while (root.getCause() != null && root.getCause() != root) root = root.getCause();
      String msg = String.valueOf(t.getMessage()).split("\n")[0];
      System.out.println(name + " FAILED: " + t.getClass().getName() + ": " + msg.substring(0, Math.min(400, msg.length()))
          + (root != t ? " (cause " + root.getClass().getName() + ": " + String.valueOf(root.getMessage()).split("\n")[0] + ")" : ""));
      return null;
    }
  }

  public static void main(String[] args) throws Exception {
    URI uri = URI.create(args[0]);
    Configuration conf = new Configuration();
    for (int i = 1; i < args.length; i++) {
      String[] kv = args[i].split("=", 2);
      conf.set(kv[0], kv[1]);
    }
    FileSystem fs = (FileSystem) step("open " + uri, () -> FileSystem.get(uri, conf));
    if (fs == null) System.exit(1);
    Path dir = new Path(uri.toString() + "/probe");
    Path file = new Path(dir, "f.txt");
    byte[] data = "superspark".getBytes(StandardCharsets.UTF_8);
    step("mkdirs", () -> fs.mkdirs(dir));
    step("create+write+close", () -> { try (OutputStream o = fs.create(file, true)) { o.write(data); } return null; });
    step("getFileStatus", () -> { FileStatus st = fs.getFileStatus(file); return st.getLen() + " bytes, " + st.getClass().getSimpleName(); });
    step("read", () -> { try (InputStream in = fs.open(file)) { return new String(in.readAllBytes(), StandardCharsets.UTF_8); } });
    step("listStatus", () -> fs.listStatus(dir).length + " entries");
    step("delete", () -> fs.delete(dir, true));
    System.exit(ok ? 0 : 1);
  }
}
