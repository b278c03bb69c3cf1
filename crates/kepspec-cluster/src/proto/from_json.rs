//! JSON to protobuf: the bytes go-to-protobuf's generated marshalling
//! writes for the Go struct the JSON decodes into. Fields go out in
//! field-number order; a plain field always (its zero value when the JSON
//! lacks it), a pointer, slice or map only when set; map entries sorted
//! by key.

use base64::Engine;
use serde_json::{Map, Value};

use super::schema::{Card, Field, Ty};
use super::table::MESSAGES;
use super::wire::{self, put_key, put_len, put_varint};

/// Encodes a JSON object as message `idx`.
pub(crate) fn message(idx: usize, obj: &Map<String, Value>) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    encode(idx, obj, &mut out, 0)?;
    Ok(out)
}

fn encode(
    idx: usize,
    obj: &Map<String, Value>,
    out: &mut Vec<u8>,
    depth: usize,
) -> Result<(), String> {
    if depth > 64 {
        return Err("objects nest deeper than 64".into());
    }
    let msg = MESSAGES.get(idx).ok_or("unknown message")?;
    // Go struct order, which is field-number order for almost every message.
    let mut sorted: Vec<&Field>;
    let fields: &mut dyn Iterator<Item = &Field> = if msg.fields.is_sorted_by_key(|f| f.num) {
        &mut msg.fields.iter()
    } else {
        sorted = msg.fields.iter().collect();
        sorted.sort_by_key(|f| f.num);
        &mut sorted.into_iter()
    };
    for f in fields {
        let at = |e: String| match f.json {
            "" => e,
            j => format!("{j}: {e}"),
        };
        if f.inline {
            if let Ty::Msg(i) = f.ty {
                let mut sub = Vec::new();
                encode(i, obj, &mut sub, depth + 1)?;
                put_len(out, f.num, &sub);
            }
            continue;
        }
        let v = obj.get(f.json).filter(|v| !v.is_null());
        match (f.card, v) {
            (Card::One, None) => zero(f, out, depth).map_err(at)?,
            (Card::Ptr | Card::Repeated | Card::Map(_), None) => {}
            (Card::One | Card::Ptr, Some(v)) => value(f.num, f.ty, v, out, depth).map_err(at)?,
            (Card::Repeated, Some(Value::Array(items))) => {
                for item in items {
                    value(f.num, f.ty, item, out, depth).map_err(at)?;
                }
            }
            (Card::Map(key_ty), Some(Value::Object(m))) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                for k in keys {
                    let mut entry = Vec::new();
                    let key = match key_ty {
                        Ty::String => Value::String(k.clone()),
                        _ => k
                            .parse::<i64>()
                            .map(Value::from)
                            .map_err(|_| at(format!("the key {k:?} is not a number")))?,
                    };
                    value(1, key_ty, &key, &mut entry, depth).map_err(at)?;
                    match &m[k] {
                        Value::Null => zero_entry(f.ty, &mut entry, depth).map_err(at)?,
                        v => value(2, f.ty, v, &mut entry, depth).map_err(at)?,
                    }
                    put_len(out, f.num, &entry);
                }
            }
            (_, Some(other)) => {
                return Err(at(format!("expected {}, got {other}", expected(f.card))));
            }
        }
    }
    Ok(())
}

fn expected(card: Card) -> &'static str {
    match card {
        Card::Repeated => "an array",
        Card::Map(_) => "an object",
        _ => "a value",
    }
}

/// A plain field the JSON lacks: its Go zero value.
fn zero(f: &Field, out: &mut Vec<u8>, depth: usize) -> Result<(), String> {
    match f.ty {
        Ty::String => put_len(out, f.num, b""),
        Ty::Int32 | Ty::Int64 | Ty::Uint32 | Ty::Uint64 | Ty::Bool => {
            put_key(out, f.num, wire::VARINT);
            put_varint(out, 0);
        }
        Ty::Double => {
            put_key(out, f.num, wire::FIXED64);
            out.extend_from_slice(&0f64.to_bits().to_le_bytes());
        }
        _ => zero_entry_at(f.num, f.ty, out, depth)?,
    }
    Ok(())
}

/// A map value that is `null`, or a plain message field left out.
fn zero_entry(ty: Ty, out: &mut Vec<u8>, depth: usize) -> Result<(), String> {
    zero_entry_at(2, ty, out, depth)
}

fn zero_entry_at(num: u32, ty: Ty, out: &mut Vec<u8>, depth: usize) -> Result<(), String> {
    match ty {
        Ty::Msg(i) => {
            let mut sub = Vec::new();
            encode(i, &Map::new(), &mut sub, depth + 1)?;
            put_len(out, num, &sub);
        }
        // A zero Time writes nothing inside; a zero RawExtension has no raw.
        Ty::Time | Ty::MicroTime | Ty::RawExtension | Ty::FieldsV1 | Ty::Items(_) | Ty::Bytes => {
            put_len(out, num, b"")
        }
        Ty::Quantity => value(num, ty, &Value::from("0"), out, depth)?,
        Ty::IntOrString => value(num, ty, &Value::from(0), out, depth)?,
        Ty::Duration => value(num, ty, &Value::from("0s"), out, depth)?,
        Ty::String => put_len(out, num, b""),
        _ => {
            put_key(out, num, wire::VARINT);
            put_varint(out, 0);
        }
    }
    Ok(())
}

fn int(v: &Value) -> Result<i64, String> {
    v.as_i64()
        .or_else(|| v.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
        .ok_or_else(|| format!("expected an integer, got {v}"))
}

fn string(v: &Value) -> Result<&str, String> {
    v.as_str()
        .ok_or_else(|| format!("expected a string, got {v}"))
}

fn value(num: u32, ty: Ty, v: &Value, out: &mut Vec<u8>, depth: usize) -> Result<(), String> {
    match ty {
        Ty::Int32 | Ty::Int64 => {
            put_key(out, num, wire::VARINT);
            let i = int(v)?;
            let i = if ty == Ty::Int32 {
                i64::from(i as i32)
            } else {
                i
            };
            put_varint(out, i as u64);
        }
        Ty::Uint32 | Ty::Uint64 => {
            put_key(out, num, wire::VARINT);
            put_varint(out, int(v)? as u64);
        }
        Ty::Bool => {
            put_key(out, num, wire::VARINT);
            put_varint(
                out,
                u64::from(
                    v.as_bool()
                        .ok_or_else(|| format!("expected a bool, got {v}"))?,
                ),
            );
        }
        Ty::Double => {
            put_key(out, num, wire::FIXED64);
            let f = v
                .as_f64()
                .ok_or_else(|| format!("expected a number, got {v}"))?;
            out.extend_from_slice(&f.to_bits().to_le_bytes());
        }
        Ty::String => put_len(out, num, string(v)?.as_bytes()),
        Ty::Bytes => {
            let b = base64::engine::general_purpose::STANDARD
                .decode(string(v)?)
                .map_err(|e| format!("not base64: {e}"))?;
            put_len(out, num, &b);
        }
        Ty::Msg(i) => {
            let obj = v
                .as_object()
                .ok_or_else(|| format!("expected an object, got {v}"))?;
            let mut sub = Vec::new();
            encode(i, obj, &mut sub, depth + 1)?;
            put_len(out, num, &sub);
        }
        Ty::Items(i) => {
            let mut obj = Map::new();
            obj.insert("items".into(), v.clone());
            let mut sub = Vec::new();
            encode(i, &obj, &mut sub, depth + 1)?;
            put_len(out, num, &sub);
        }
        Ty::Time | Ty::MicroTime => {
            let ts: jiff::Timestamp = string(v)?
                .parse()
                .map_err(|e| format!("not an RFC 3339 time: {e}"))?;
            let mut sub = Vec::new();
            put_key(&mut sub, 1, wire::VARINT);
            put_varint(&mut sub, ts.as_second() as u64);
            put_key(&mut sub, 2, wire::VARINT);
            let nanos = if ty == Ty::MicroTime {
                ts.subsec_microsecond() * 1000
            } else {
                0
            };
            put_varint(&mut sub, i64::from(nanos) as u64);
            put_len(out, num, &sub);
        }
        Ty::Duration => {
            let ns = parse_go_duration(string(v)?)?;
            let mut sub = Vec::new();
            put_key(&mut sub, 1, wire::VARINT);
            put_varint(&mut sub, ns as u64);
            put_len(out, num, &sub);
        }
        Ty::Quantity => {
            let s = match v {
                Value::Number(n) => n.to_string(),
                other => string(other)?.to_string(),
            };
            let mut sub = Vec::new();
            put_len(&mut sub, 1, s.as_bytes());
            put_len(out, num, &sub);
        }
        Ty::IntOrString => {
            let mut sub = Vec::new();
            let (kind, int_val, str_val) = match v {
                Value::String(s) => (1, 0, s.as_str()),
                other => (0, int(other)?, ""),
            };
            put_key(&mut sub, 1, wire::VARINT);
            put_varint(&mut sub, kind);
            put_key(&mut sub, 2, wire::VARINT);
            put_varint(&mut sub, i64::from(int_val as i32) as u64);
            put_len(&mut sub, 3, str_val.as_bytes());
            put_len(out, num, &sub);
        }
        Ty::RawExtension | Ty::FieldsV1 => {
            let raw = serde_json::to_vec(v).map_err(|e| e.to_string())?;
            let mut sub = Vec::new();
            put_len(&mut sub, 1, &raw);
            put_len(out, num, &sub);
        }
    }
    Ok(())
}

/// Go's `time.ParseDuration` for the forms `time.Duration.String` writes.
fn parse_go_duration(s: &str) -> Result<i64, String> {
    let bad = || format!("not a duration: {s:?}");
    let (neg, mut rest) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    if rest == "0" {
        return Ok(0);
    }
    let mut total: f64 = 0.0;
    while !rest.is_empty() {
        let n = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(bad)?;
        let (num, tail) = rest.split_at(n);
        let u = tail
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(tail.len());
        let (unit, tail) = tail.split_at(u);
        let scale = match unit {
            "ns" => 1.0,
            "us" | "µs" | "μs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            _ => return Err(bad()),
        };
        total += num.parse::<f64>().map_err(|_| bad())? * scale;
        rest = tail;
    }
    Ok(if neg { -total.round() } else { total.round() } as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_parse_what_go_writes() {
        for (text, ns) in [
            ("0s", 0),
            ("1h2m3.5s", 3_723_500_000_000i64),
            ("-1m30s", -90_000_000_000),
            ("1.5µs", 1_500),
        ] {
            assert_eq!(parse_go_duration(text), Ok(ns), "{text}");
            assert_eq!(super::super::to_json::go_duration(ns), text);
        }
        assert!(parse_go_duration("soon").is_err());
    }
}
