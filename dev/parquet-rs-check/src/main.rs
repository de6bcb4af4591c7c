//! superspark's arrow-rs checker: an independent Parquet reader and ALP writer for the test suite
//! (tests/test_parquet_rs.py). Two commands, plain text in, JSON out, no dependency but the
//! `parquet` crate:
//!
//! `dump FILE`: every row group, every leaf column, with the chunk's codec and encodings, each
//! page's type and encoding, and every value as read by the crate's column readers:
//! definition and repetition levels, and the non-null values as exact text (integers in
//! decimal, FLOAT/DOUBLE as the hex of their IEEE bits, binary as hex). On any read error it
//! prints `{"error": "..."}` and exits 3.
//!
//! `write-alp OUT TYPE NULLABLE CODEC VERSION ROWS_PER_GROUP PAGE_ROWS VALUES NULLS`: writes a
//! file `message m { required int64 id; (required|optional) TYPE v; }` with `v` ALP-encoded
//! (dictionary off) and `id` = the row number. TYPE is `float` or `double`; CODEC a Parquet
//! codec name; VERSION 1 or 2 (data page V1 or V2); VALUES the raw little-endian values of
//! the non-null rows; NULLS one byte a row (1 = null).

use std::fmt::Write as _;
use std::fs::File;
use std::process::exit;
use std::sync::Arc;

use parquet::basic::{Compression, Encoding, GzipLevel, ZstdLevel};
use parquet::column::page::{Page, PageReader};
use parquet::column::reader::ColumnReader;
use parquet::data_type::{DoubleType, FloatType, Int64Type};
use parquet::file::properties::{WriterProperties, WriterVersion};
use parquet::file::reader::FileReader;
use parquet::file::serialized_reader::SerializedFileReader;
use parquet::file::writer::SerializedFileWriter;
use parquet::schema::parser::parse_message_type;
use parquet::schema::types::ColumnPath;

fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{:02x}", b);
    }
    s
}

fn levels(v: &[i16]) -> String {
    let parts: Vec<String> = v.iter().map(|l| l.to_string()).collect();
    format!("[{}]", parts.join(","))
}

/// Reads a whole column chunk with the crate's typed reader; returns (def, rep, values as text).
macro_rules! read_all {
    ($reader:expr, $all_defs:ident, $all_reps:ident, $fmt:expr) => {{
        let mut r = $reader;
        let mut defs = Vec::new();
        let mut reps = Vec::new();
        let mut vals = Vec::new();
        let mut out = Vec::new();
        loop {
            defs.clear();
            reps.clear();
            vals.clear();
            let (records, _values, _levels) =
                r.read_records(8192, Some(&mut defs), Some(&mut reps), &mut vals)?;
            if records == 0 {
                break;
            }
            out.extend(vals.iter().map($fmt));
            $all_defs.extend_from_slice(&defs);
            $all_reps.extend_from_slice(&reps);
        }
        out
    }};
}

fn page_list(mut pages: Box<dyn PageReader>) -> parquet::errors::Result<String> {
    let mut items = Vec::new();
    while let Some(page) = pages.get_next_page()? {
        let (kind, enc, n) = match &page {
            Page::DataPage { encoding, num_values, .. } => ("DATA_PAGE", *encoding, *num_values),
            Page::DataPageV2 { encoding, num_values, .. } => ("DATA_PAGE_V2", *encoding, *num_values),
            Page::DictionaryPage { encoding, num_values, .. } => ("DICTIONARY_PAGE", *encoding, *num_values),
        };
        items.push(format!(
            "{{\"type\":\"{}\",\"encoding\":\"{}\",\"num_values\":{}}}",
            kind, enc, n
        ));
    }
    Ok(format!("[{}]", items.join(",")))
}

fn dump(path: &str) -> parquet::errors::Result<String> {
    let file = File::open(path).map_err(|e| parquet::errors::ParquetError::General(e.to_string()))?;
    let reader = SerializedFileReader::new(file)?;
    let meta = reader.metadata();
    let schema = meta.file_metadata().schema_descr_ptr();
    let mut groups = Vec::new();
    for g in 0..reader.num_row_groups() {
        let rg = reader.get_row_group(g)?;
        let rg_meta = rg.metadata();
        let mut cols = Vec::new();
        for c in 0..rg.num_columns() {
            let cm = rg_meta.column(c);
            let desc = schema.column(c);
            let mut all_defs: Vec<i16> = Vec::new();
            let mut all_reps: Vec<i16> = Vec::new();
            let values: Vec<String> = match rg.get_column_reader(c)? {
                ColumnReader::BoolColumnReader(r) => read_all!(r, all_defs, all_reps, |v: &bool| (*v as u8).to_string()),
                ColumnReader::Int32ColumnReader(r) => read_all!(r, all_defs, all_reps, |v: &i32| v.to_string()),
                ColumnReader::Int64ColumnReader(r) => read_all!(r, all_defs, all_reps, |v: &i64| v.to_string()),
                ColumnReader::Int96ColumnReader(r) => read_all!(r, all_defs, all_reps, |v: &parquet::data_type::Int96| {
                    let d = v.data();
                    format!("{:08x}{:08x}{:08x}", d[0], d[1], d[2])
                }),
                ColumnReader::FloatColumnReader(r) => read_all!(r, all_defs, all_reps, |v: &f32| format!("{:08x}", v.to_bits())),
                ColumnReader::DoubleColumnReader(r) => read_all!(r, all_defs, all_reps, |v: &f64| format!("{:016x}", v.to_bits())),
                ColumnReader::ByteArrayColumnReader(r) => read_all!(r, all_defs, all_reps, |v: &parquet::data_type::ByteArray| hex(v.data())),
                ColumnReader::FixedLenByteArrayColumnReader(r) => {
                    read_all!(r, all_defs, all_reps, |v: &parquet::data_type::FixedLenByteArray| hex(v.data()))
                }
            };
            let encodings: Vec<String> = cm.encodings().map(|e| json_str(&e.to_string())).collect();
            let quoted: Vec<String> = values.iter().map(|v| format!("\"{}\"", v)).collect();
            cols.push(format!(
                "{{\"path\":{},\"physical\":\"{}\",\"codec\":\"{}\",\"encodings\":[{}],\"num_values\":{},\
                 \"max_def\":{},\"max_rep\":{},\"pages\":{},\"def\":{},\"rep\":{},\"values\":[{}]}}",
                json_str(&cm.column_path().string()),
                cm.column_type(),
                codec_name(cm.compression()),
                encodings.join(","),
                cm.num_values(),
                desc.max_def_level(),
                desc.max_rep_level(),
                page_list(rg.get_column_page_reader(c)?)?,
                levels(&all_defs),
                levels(&all_reps),
                quoted.join(",")
            ));
        }
        groups.push(format!(
            "{{\"num_rows\":{},\"columns\":[{}]}}",
            rg_meta.num_rows(),
            cols.join(",")
        ));
    }
    Ok(format!(
        "{{\"num_rows\":{},\"row_groups\":[{}]}}",
        meta.file_metadata().num_rows(),
        groups.join(",")
    ))
}

fn codec_name(c: Compression) -> &'static str {
    match c {
        Compression::UNCOMPRESSED => "UNCOMPRESSED",
        Compression::SNAPPY => "SNAPPY",
        Compression::GZIP(_) => "GZIP",
        Compression::LZO => "LZO",
        Compression::BROTLI(_) => "BROTLI",
        Compression::LZ4 => "LZ4",
        Compression::ZSTD(_) => "ZSTD",
        Compression::LZ4_RAW => "LZ4_RAW",
    }
}

fn parse_codec(s: &str) -> Compression {
    match s {
        "uncompressed" => Compression::UNCOMPRESSED,
        "snappy" => Compression::SNAPPY,
        "gzip" => Compression::GZIP(GzipLevel::default()),
        "zstd" => Compression::ZSTD(ZstdLevel::default()),
        "lz4" => Compression::LZ4,
        "lz4_raw" => Compression::LZ4_RAW,
        other => fail(&format!("unknown codec {other}")),
    }
}

fn fail(msg: &str) -> ! {
    eprintln!("parquet-rs-check: {msg}");
    exit(2)
}

fn write_alp(args: &[String]) -> parquet::errors::Result<()> {
    if args.len() != 9 {
        fail("write-alp OUT TYPE NULLABLE CODEC VERSION ROWS_PER_GROUP PAGE_ROWS VALUES NULLS");
    }
    let (out, ty, nullable) = (&args[0], args[1].as_str(), args[2] == "1");
    let codec = parse_codec(&args[3]);
    let version = match args[4].as_str() {
        "1" => WriterVersion::PARQUET_1_0,
        "2" => WriterVersion::PARQUET_2_0,
        v => fail(&format!("unknown page version {v}")),
    };
    let per_group: usize = args[5].parse().unwrap_or_else(|_| fail("ROWS_PER_GROUP"));
    let page_rows: usize = args[6].parse().unwrap_or_else(|_| fail("PAGE_ROWS"));
    let raw = std::fs::read(&args[7]).unwrap_or_else(|e| fail(&e.to_string()));
    let nulls = std::fs::read(&args[8]).unwrap_or_else(|e| fail(&e.to_string()));
    let width = match ty {
        "float" => 4,
        "double" => 8,
        t => fail(&format!("unknown type {t}")),
    };
    if raw.len() % width != 0 {
        fail("VALUES is not a whole number of values");
    }
    let rows = nulls.len();
    let present = nulls.iter().filter(|n| **n == 0).count();
    if present * width != raw.len() {
        fail("VALUES does not hold one value per non-null row");
    }
    let schema = format!(
        "message m {{ required int64 id; {} {} v; }}",
        if nullable { "optional" } else { "required" },
        ty
    );
    let schema = Arc::new(parse_message_type(&schema)?);
    let props = WriterProperties::builder()
        .set_writer_version(version)
        .set_compression(codec)
        .set_max_row_group_row_count(Some(per_group))
        .set_data_page_row_count_limit(page_rows)
        .set_write_batch_size(page_rows.min(1024))
        .set_column_dictionary_enabled(ColumnPath::from("v"), false)
        .set_column_encoding(ColumnPath::from("v"), Encoding::ALP)
        .build();
    let file = File::create(out).map_err(|e| parquet::errors::ParquetError::General(e.to_string()))?;
    let mut writer = SerializedFileWriter::new(file, schema, Arc::new(props))?;
    let mut start = 0usize; // first row of the group
    let mut vstart = 0usize; // first value of the group
    while start < rows {
        let end = (start + per_group).min(rows);
        let mut rg = writer.next_row_group()?;
        let ids: Vec<i64> = (start as i64..end as i64).collect();
        let mut col = rg.next_column()?.expect("id");
        col.typed::<Int64Type>().write_batch(&ids, None, None)?;
        col.close()?;
        let defs: Vec<i16> = nulls[start..end].iter().map(|n| if *n == 0 { 1 } else { 0 }).collect();
        let count = defs.iter().filter(|d| **d == 1).count();
        let bytes = &raw[vstart * width..(vstart + count) * width];
        let def_arg = if nullable { Some(defs.as_slice()) } else { None };
        if !nullable && count != end - start {
            fail("a required column has null rows");
        }
        let mut col = rg.next_column()?.expect("v");
        if width == 8 {
            let v: Vec<f64> = bytes.chunks_exact(8).map(|b| f64::from_le_bytes(b.try_into().unwrap())).collect();
            write_in_pages::<DoubleType>(&mut col, &v, def_arg, page_rows)?;
        } else {
            let v: Vec<f32> = bytes.chunks_exact(4).map(|b| f32::from_le_bytes(b.try_into().unwrap())).collect();
            write_in_pages::<FloatType>(&mut col, &v, def_arg, page_rows)?;
        }
        col.close()?;
        rg.close()?;
        start = end;
        vstart += count;
    }
    writer.close()?;
    Ok(())
}

/// Writes in batches of at most PAGE_ROWS rows, so that the row-count limit cuts pages there.
fn write_in_pages<T: parquet::data_type::DataType>(
    col: &mut parquet::file::writer::SerializedColumnWriter<'_>,
    values: &[T::T],
    defs: Option<&[i16]>,
    page_rows: usize,
) -> parquet::errors::Result<()>
where
    T::T: Clone,
{
    let w = col.typed::<T>();
    let rows = defs.map(|d| d.len()).unwrap_or(values.len());
    let mut r = 0usize;
    let mut v = 0usize;
    while r < rows {
        let e = (r + page_rows).min(rows);
        match defs {
            Some(d) => {
                let n = d[r..e].iter().filter(|x| **x == 1).count();
                w.write_batch(&values[v..v + n], Some(&d[r..e]), None)?;
                v += n;
            }
            None => {
                w.write_batch(&values[r..e], None, None)?;
            }
        }
        r = e;
    }
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(|s| s.as_str()) {
        Some("dump") if args.len() == 3 => match dump(&args[2]) {
            Ok(s) => println!("{s}"),
            Err(e) => {
                println!("{{\"error\":{}}}", json_str(&e.to_string()));
                exit(3)
            }
        },
        Some("write-alp") => {
            if let Err(e) = write_alp(&args[2..]) {
                eprintln!("parquet-rs-check: {e}");
                exit(3)
            }
        }
        _ => fail("usage: dump FILE | write-alp OUT TYPE NULLABLE CODEC VERSION ROWS_PER_GROUP PAGE_ROWS VALUES NULLS"),
    }
}
