package io.superspark.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.openjdk.jmh.annotations.*;
import io.superspark.parquet.footer.codec.Projection;
import io.superspark.parquet.footer.codec.RowGroupSelection;
import io.superspark.parquet.footer.files.FooterBytes;
import io.superspark.parquet.footer.files.FooterReadResult;
import io.superspark.parquet.footer.files.FooterReader;
import io.superspark.parquet.footer.files.FooterSource;


/**
 * Footer decode benchmark (bench/parquet_footer/run.py compiles and runs it with JMH), on
 * pyarrow's wide fixture of `columns` columns x 20 row groups, footer bytes in memory (no file
 * I/O), in the private or final form: FooterReader.read = locate (crc32 of the size, crc32 over
 * the whole FlatBuffer) + structural verifier + decode, of all columns (fullDecode: statistics
 * tables verified and decoded lazily, on first access, the default), of all columns with every
 * statistic verified and decoded at open (fullDecodeEager), or of 10 columns spread over the
 * schema (projectedDecode, lazy statistics).
 * Each of those operations gets a new FooterBytes over the same array, so the CRCs are computed
 * every time (FooterBytes keeps its located/CRC result per instance, lazily). The *Verified
 * variants reuse one instance whose CRCs were checked once: what a footer cache hit pays
 * (verifier + decode, no CRC, no I/O).
 * The parquet-java baseline and add/migrate are in FooterOpsBench.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
public class FooterFormsBench {

  @Param({"1000", "10000"})
  public int columns;

  @Param({"private", "final"})
  public String form;

  private FooterBytes extended;
  private Projection projection;
  private final Projection eager = new Projection(scala.Option.empty(), RowGroupSelection.All$.MODULE$, false, false);

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    FooterBytes plain = BenchFooters.plain(columns);
    extended = BenchFooters.inForm(plain, form);
    ParquetMetadata md = FooterReader.thrift(plain, Projection.Full());
    List<scala.collection.immutable.Seq<String>> ten = new ArrayList<>();
    var leaves = md.getFileMetaData().getSchema().getColumns();
    for (int i = 0; i < 10; i++) {
      String[] p = leaves.get(i * leaves.size() / 10).getPath();
      ten.add(scala.jdk.javaapi.CollectionConverters.asScala(java.util.Arrays.asList(p)).toList());
    }
    projection = new Projection(scala.Option.apply(scala.jdk.javaapi.CollectionConverters.asScala(ten).toList()),
        RowGroupSelection.All$.MODULE$, false, true);
  }

  private void requireFlatBuffer(FooterReadResult r) {
    if (r.source() != FooterSource.FlatBuffer$.MODULE$) throw new IllegalStateException(r.fallback().toString());
  }

  /** The same footer bytes as a new instance: its CRCs are not known yet (as for bytes just read). */
  private FooterBytes fresh() {
    return new FooterBytes(extended.path(), extended.fileLength(), extended.footerOffset(), extended.footer(),
        extended.isFinal());
  }

  @Benchmark
  public Object fullDecode() {
    FooterReadResult r = FooterReader.read(fresh(), Projection.Full(), true);
    requireFlatBuffer(r);
    return r.metadata();
  }

  @Benchmark
  public Object fullDecodeEager() {
    FooterReadResult r = FooterReader.read(fresh(), eager, true);
    requireFlatBuffer(r);
    return r.metadata();
  }

  @Benchmark
  public Object projectedDecode() {
    FooterReadResult r = FooterReader.read(fresh(), projection, true);
    requireFlatBuffer(r);
    return r.metadata();
  }

  @Benchmark
  public Object fullDecodeVerified() {
    FooterReadResult r = FooterReader.read(extended, Projection.Full(), true);
    requireFlatBuffer(r);
    return r.metadata();
  }

  @Benchmark
  public Object projectedDecodeVerified() {
    FooterReadResult r = FooterReader.read(extended, projection, true);
    requireFlatBuffer(r);
    return r.metadata();
  }
}
