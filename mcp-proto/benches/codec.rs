//! The NDJSON codec against a bare parse of the same lines already split.
//!
//! `cargo bench -p mcp-proto --bench codec` runs the criterion groups, then prints the ratio
//! "bare parse time / codec time" measured by interleaved rounds in the same run (target ≥ 0.90),
//! and the time per byte of one large message fed in 4 KiB reads at several sizes (linear
//! means the per-byte time stays flat).

use std::hint::black_box;
use std::time::{Duration, Instant};

use bytes::BytesMut;
use criterion::{BenchmarkId, Criterion, Throughput};
use mcp_proto::codec::JsonRpcCodec;
use mcp_proto::jsonrpc;
use tokio_util::codec::Decoder;

/// A stream of realistic `tools/call` requests and their responses, one per line.
fn realistic_stream(pairs: usize) -> Vec<u8> {
    let cities = [
        "Shenzhen",
        "Beijing",
        "London",
        "São Paulo",
        "Tōkyō",
        "New York",
    ];
    let mut out = Vec::new();
    for i in 0..pairs {
        let city = cities[i % cities.len()];
        out.extend_from_slice(
            format!(
                r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"get_weather","arguments":{{"city":"{city}","units":"metric"}},"_meta":{{"progressToken":"tok-{i}"}}}}}}"#
            )
            .as_bytes(),
        );
        out.push(b'\n');
        out.extend_from_slice(
            format!(
                r#"{{"jsonrpc":"2.0","id":{i},"result":{{"content":[{{"type":"text","text":"{city}: thunderstorms, 30 °C, humidity 85 %, wind 12 km/h"}}],"structuredContent":{{"city":"{city}","temperature_c":30.0,"condition":"thunderstorms","humidity":85,"wind_kmh":12.0,"wind_direction":"SE","observed_at":"2026-11-29T12:00:00Z"}},"isError":false}}}}"#
            )
            .as_bytes(),
        );
        out.push(b'\n');
    }
    out
}

/// Decodes the whole stream with the codec, fed in reads of `chunk` bytes.
fn decode_with_codec(stream: &[u8], chunk: usize) -> usize {
    let mut codec = JsonRpcCodec::default();
    let mut buf = BytesMut::with_capacity(64 * 1024);
    let mut count = 0;
    for piece in stream.chunks(chunk) {
        buf.extend_from_slice(piece);
        while let Ok(Some(item)) = codec.decode(&mut buf) {
            count += usize::from(black_box(item).is_ok());
        }
    }
    count
}

/// Parses lines that were split beforehand: the bare cost with no framing.
fn parse_split(lines: &[&[u8]]) -> usize {
    lines
        .iter()
        .filter(|line| black_box(jsonrpc::parse(line)).is_ok())
        .count()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let stream = realistic_stream(5_000);
    let lines: Vec<&[u8]> = stream
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(decode_with_codec(&stream, 64 * 1024), lines.len());
    assert_eq!(parse_split(&lines), lines.len());

    let mut criterion = Criterion::default().configure_from_args();
    {
        let mut group = criterion.benchmark_group("tools_call_stream");
        group.throughput(Throughput::Bytes(stream.len() as u64));
        group.bench_function("codec_64k_reads", |b| {
            b.iter(|| decode_with_codec(&stream, 64 * 1024))
        });
        group.bench_function("parse_presplit", |b| b.iter(|| parse_split(&lines)));
        group.bench_function("serde_value_presplit", |b| {
            b.iter(|| {
                lines
                    .iter()
                    .filter(|l| serde_json::from_slice::<serde_json::Value>(l).is_ok())
                    .count()
            })
        });
        group.finish();
    }
    {
        let mut group = criterion.benchmark_group("large_message_4k_reads");
        for size in [256 * 1024, 1024 * 1024, 4 * 1024 * 1024] {
            let msg = large_message(size);
            group.throughput(Throughput::Bytes(msg.len() as u64));
            group.bench_with_input(BenchmarkId::from_parameter(size), &msg, |b, msg| {
                b.iter(|| decode_with_codec(msg, 4096))
            });
        }
        group.finish();
    }
    criterion.final_summary();
    // `cargo test --all-targets` runs benches once without `--bench`: skip the long part there.
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }

    // Interleaved rounds in one run: the ratio the issue asks for.
    let (mut codec_t, mut bare_t) = (Vec::new(), Vec::new());
    for _ in 0..31 {
        let t = Instant::now();
        black_box(decode_with_codec(&stream, 64 * 1024));
        codec_t.push(t.elapsed());
        let t = Instant::now();
        black_box(parse_split(&lines));
        bare_t.push(t.elapsed());
    }
    let (codec_m, bare_m) = (median(codec_t), median(bare_t));
    println!(
        "ratio: bare parse {:?} / codec {:?} = {:.3} (target >= 0.90) over {} messages, {} bytes",
        bare_m,
        codec_m,
        bare_m.as_secs_f64() / codec_m.as_secs_f64(),
        lines.len(),
        stream.len()
    );
    for size in [
        256 * 1024,
        1024 * 1024,
        4 * 1024 * 1024,
        16 * 1024 * 1024 - 4096,
    ] {
        let msg = large_message(size);
        let mut times = Vec::new();
        for _ in 0..7 {
            let t = Instant::now();
            assert_eq!(decode_with_codec(&msg, 4096), 1);
            times.push(t.elapsed());
        }
        let m = median(times);
        println!(
            "large message {:>9} bytes in 4 KiB reads: {:?} ({:.2} ns/byte)",
            msg.len(),
            m,
            m.as_secs_f64() * 1e9 / msg.len() as f64
        );
    }
}

/// One `tools/call` result of about `size` bytes.
fn large_message(size: usize) -> Vec<u8> {
    let text = "x".repeat(size.saturating_sub(100));
    let mut msg = format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[{{"type":"text","text":"{text}"}}]}}}}"#
    )
    .into_bytes();
    msg.push(b'\n');
    msg
}
