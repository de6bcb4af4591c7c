package io.superspark.parquet.footer;

/**
 * A FlatBuffer footer that is structurally sound but does not describe valid Parquet
 * metadata (a broken schema tree, an unknown enum value). Internal: readers turn it into a
 * fallback to the Thrift footer (FallbackReason.Undecodable).
 */
public class FooterDecodeException extends RuntimeException {
  public FooterDecodeException(String message) {
    super(message);
  }
}
