package io.superspark.bench;

import java.io.ByteArrayInputStream;
import java.util.concurrent.TimeUnit;

import org.apache.parquet.format.converter.ParquetMetadataConverter;
import org.openjdk.jmh.annotations.*;
import io.superspark.parquet.footer.codec.FooterForm;
import io.superspark.parquet.footer.files.FooterBytes;
import io.superspark.parquet.footer.files.FooterFiles;
import io.superspark.parquet.footer.files.FooterReader;


/**
 * The parquet-java baseline and the footer rewrites, on the same fixtures, in memory:
 *  - thriftDecode: parquet-java's ParquetMetadataConverter.readParquetMetadata on the Thrift footer
 *    (Thrift parse + conversion to ParquetMetadata: what a parquet-java reader does to open a file);
 *  - add: the private-form tail from the plain Thrift footer (Thrift parse, conversion to the
 *    FlatBuffer, Thrift rebuilt from it and compared byte for byte, extension appended);
 *  - migrateToFinal: the final-form tail from the plain Thrift footer (the same steps);
 *  - migrateFinalToPlain: the Thrift footer rebuilt from the final form (both CRCs, verifier, rebuild).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@State(Scope.Benchmark)
public class FooterOpsBench {

  @Param({"1000", "10000"})
  public int columns;

  private byte[] thrift;
  private FooterBytes plain;
  private FooterBytes finalForm;
  private ParquetMetadataConverter converter;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    plain = BenchFooters.plain(columns);
    thrift = plain.footer();
    finalForm = BenchFooters.inForm(plain, "final");
    converter = FooterReader.converter(false);
  }

  @Benchmark
  public Object thriftDecode() throws Exception {
    return converter.readParquetMetadata(new ByteArrayInputStream(thrift), ParquetMetadataConverter.NO_FILTER);
  }

  @Benchmark
  public Object add() {
    return BenchFooters.tailFor(plain.path(), thrift, FooterForm.Private$.MODULE$); // tailFor = extendedTail for private
  }

  @Benchmark
  public Object migrateToFinal() {
    return BenchFooters.tailFor(plain.path(), thrift, FooterForm.Final$.MODULE$);
  }

  @Benchmark
  public Object migrateFinalToPlain() {
    byte[] rebuilt = FooterFiles.thriftFooter(finalForm);
    if (!java.util.Arrays.equals(rebuilt, thrift)) throw new IllegalStateException("rebuild differs");
    return rebuilt;
  }
}
