import io.superspark.parquet.alp.AlpCodec;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.parquet.bytes.ByteBufferInputStream;
import org.apache.parquet.column.values.ValuesReader;
import org.apache.parquet.column.values.bytestreamsplit.ByteStreamSplitValuesReaderForDouble;
import org.apache.parquet.column.values.bytestreamsplit.ByteStreamSplitValuesReaderForFloat;
import org.apache.parquet.column.values.plain.PlainValuesReader;

/**
 * The codec half of `make bench-alp` (bench/alp/run.py compiles and runs it): one column of raw
 * little-endian values in, ALP pages of PAGE values each (the encoder superspark writes with),
 * and the decode speed of those pages against parquet-java's PLAIN and BYTE_STREAM_SPLIT value
 * readers and a bulk little-endian copy (what Spark's vectorized PLAIN reader does), each
 * decoding the same pages of the same values into a double[] / float[]. Prints one JSON line
 * with the ALP bytes and the median seconds of each decoder over REPEATS passes (after warm-up).
 *
 * usage: AlpCodecBench double|float values.bin PAGE REPEATS
 */
public final class AlpCodecBench {
  private static double median(double[] a) {
    double[] s = a.clone();
    Arrays.sort(s);
    return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  }

  interface Pass { double run() throws Exception; }

  /** Median seconds of `repeats` timed passes after `repeats` warm-up passes; checks the checksum. */
  private static double time(Pass p, int repeats, double expected, String name) throws Exception {
    for (int i = 0; i < repeats; i++) check(p.run(), expected, name);
    double[] t = new double[repeats];
    for (int i = 0; i < repeats; i++) {
      long t0 = System.nanoTime();
      double sum = p.run();
      t[i] = (System.nanoTime() - t0) / 1e9;
      check(sum, expected, name);
    }
    return median(t);
  }

  private static void check(double got, double expected, String name) {
    if (Double.doubleToRawLongBits(got) != Double.doubleToRawLongBits(expected))
      throw new IllegalStateException(name + ": checksum " + got + " != " + expected);
  }

  public static void main(String[] args) throws Exception {
    boolean dbl = args[0].equals("double");
    byte[] raw = Files.readAllBytes(Paths.get(args[1]));
    int page = Integer.parseInt(args[2]);
    int repeats = Integer.parseInt(args[3]);
    int width = dbl ? 8 : 4;
    int n = raw.length / width;
    ByteBuffer le = ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN);
    double[] d = dbl ? new double[n] : null;
    float[] f = dbl ? null : new float[n];
    if (dbl) le.asDoubleBuffer().get(d); else le.asFloatBuffer().get(f);

    // encode, page by page
    List<byte[]> alp = new ArrayList<>();
    long t0 = System.nanoTime();
    for (int from = 0; from < n; from += page) {
      int k = Math.min(page, n - from);
      alp.add(dbl ? AlpCodec.encodeDoubles(d, from, k, AlpCodec.DefaultLogVectorSize())
                  : AlpCodec.encodeFloats(f, from, k, AlpCodec.DefaultLogVectorSize()));
    }
    double encodeS = (System.nanoTime() - t0) / 1e9;
    long alpBytes = 0;
    for (byte[] b : alp) alpBytes += b.length;

    // the same pages as PLAIN and BYTE_STREAM_SPLIT bytes
    List<byte[]> plain = new ArrayList<>();
    List<byte[]> bss = new ArrayList<>();
    for (int from = 0; from < n; from += page) {
      int k = Math.min(page, n - from);
      plain.add(Arrays.copyOfRange(raw, from * width, (from + k) * width));
      byte[] s = new byte[k * width];
      for (int i = 0; i < k; i++)
        for (int j = 0; j < width; j++) s[j * k + i] = raw[(from + i) * width + j];
      bss.add(s);
    }

    double[] outD = dbl ? new double[page] : null;
    float[] outF = dbl ? null : new float[page];
    double expected = 0;
    for (int i = 0; i < n; i++) expected += dbl ? d[i] : f[i];

    Pass alpPass = () -> {
      double sum = 0;
      for (byte[] b : alp) {
        int k = dbl ? AlpCodec.decodeDoubles(b, 0, b.length, outD, 0) : AlpCodec.decodeFloats(b, 0, b.length, outF, 0);
        if (dbl) for (int i = 0; i < k; i++) sum += outD[i]; else for (int i = 0; i < k; i++) sum += outF[i];
      }
      return sum;
    };
    Pass bulkPass = () -> {
      double sum = 0;
      for (byte[] b : plain) {
        ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        int k = b.length / width;
        if (dbl) { bb.asDoubleBuffer().get(outD, 0, k); for (int i = 0; i < k; i++) sum += outD[i]; }
        else { bb.asFloatBuffer().get(outF, 0, k); for (int i = 0; i < k; i++) sum += outF[i]; }
      }
      return sum;
    };
    Pass plainPass = () -> readerPass(plain, width, dbl, outD, outF, false);
    Pass bssPass = () -> readerPass(bss, width, dbl, outD, outF, true);

    // exactness once: every ALP value equals its source value bit for bit
    int at = 0;
    for (byte[] b : alp) {
      int k = dbl ? AlpCodec.decodeDoubles(b, 0, b.length, outD, 0) : AlpCodec.decodeFloats(b, 0, b.length, outF, 0);
      for (int i = 0; i < k; i++, at++) {
        boolean same = dbl ? Double.doubleToRawLongBits(outD[i]) == Double.doubleToRawLongBits(d[at])
                           : Float.floatToRawIntBits(outF[i]) == Float.floatToRawIntBits(f[at]);
        if (!same) throw new IllegalStateException("ALP value " + at + " differs");
      }
    }

    double alpS = time(alpPass, repeats, expected, "alp");
    double bulkS = time(bulkPass, repeats, expected, "bulk");
    double plainS = time(plainPass, repeats, expected, "plain");
    double bssS = time(bssPass, repeats, expected, "bss");
    System.out.printf(java.util.Locale.ROOT,
        "{\"values\": %d, \"pages\": %d, \"alp_bytes\": %d, \"encode_s\": %.4f, \"alp_decode_s\": %.5f, "
            + "\"bulk_copy_s\": %.5f, \"parquet_plain_s\": %.5f, \"parquet_bss_s\": %.5f}%n",
        n, alp.size(), alpBytes, encodeS, alpS, bulkS, plainS, bssS);
  }

  private static double readerPass(List<byte[]> pages, int width, boolean dbl, double[] outD, float[] outF,
      boolean bss) throws Exception {
    double sum = 0;
    for (byte[] b : pages) {
      int k = b.length / width;
      ValuesReader r = bss ? (dbl ? new ByteStreamSplitValuesReaderForDouble() : new ByteStreamSplitValuesReaderForFloat())
                           : (dbl ? new PlainValuesReader.DoublePlainValuesReader() : new PlainValuesReader.FloatPlainValuesReader());
      r.initFromPage(k, ByteBufferInputStream.wrap(ByteBuffer.wrap(b)));
      if (dbl) { for (int i = 0; i < k; i++) outD[i] = r.readDouble(); for (int i = 0; i < k; i++) sum += outD[i]; }
      else { for (int i = 0; i < k; i++) outF[i] = r.readFloat(); for (int i = 0; i < k; i++) sum += outF[i]; }
    }
    return sum;
  }
}
