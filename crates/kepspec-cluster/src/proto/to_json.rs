//! Protobuf to JSON: the JSON kube-apiserver's Go types would write for
//! the message (encoding/json over the struct go-to-protobuf decoded).
//! A field the message lacks takes its Go zero value: a plain string,
//! number or bool is written unless `omitempty`, a struct always (a zero
//! metav1.Time as `null`), a pointer, slice or map as `null` unless
//! `omitempty`.

use base64::Engine;
use serde_json::{Map, Number, Value};

use super::schema::{Card, Field, Ty};
use super::table::MESSAGES;
use super::wire::{self, Raw};

/// How deep messages may nest (a Pod nests about ten deep).
const MAX_DEPTH: usize = 64;

/// Decodes message `idx` into a JSON object.
pub(crate) fn message(idx: usize, bytes: &[u8]) -> Result<Map<String, Value>, String> {
    decode(idx, bytes, 0)
}

fn decode(idx: usize, bytes: &[u8], depth: usize) -> Result<Map<String, Value>, String> {
    if depth > MAX_DEPTH {
        return Err(format!("messages nest deeper than {MAX_DEPTH}"));
    }
    let msg = MESSAGES.get(idx).ok_or("unknown message")?;
    let raw = wire::fields(bytes)?;
    let mut out = Map::new();
    for f in msg.fields {
        let mut vals = raw.iter().filter(|(n, _)| *n == f.num).map(|(_, r)| *r);
        let at = |e: String| format!("{}: {e}", field_name(msg.name, f));
        match f.card {
            Card::One | Card::Ptr => match vals.next_back() {
                Some(r) => {
                    let v = value(f.ty, r, depth).map_err(at)?;
                    // A plain Go value is always written, but encoding/json
                    // leaves an `omitempty` one out when it is zero.
                    if !(f.card == Card::One && f.omit && plain(f.ty) && is_empty_scalar(&v)) {
                        put(&mut out, f, v);
                    }
                }
                None if f.card == Card::Ptr => {
                    if !f.omit {
                        out.insert(f.json.into(), Value::Null);
                    }
                }
                None => zero(&mut out, f, depth).map_err(at)?,
            },
            Card::Repeated => {
                let mut items = Vec::new();
                for r in vals {
                    match (r, packable(f.ty)) {
                        // A packed repeated scalar (proto3 writers).
                        (Raw::Len(mut b), true) => {
                            while !b.is_empty() {
                                let v = wire::varint(&mut b).map_err(at)?;
                                items.push(value(f.ty, Raw::Varint(v), depth).map_err(at)?);
                            }
                        }
                        _ => items.push(value(f.ty, r, depth).map_err(at)?),
                    }
                }
                if !items.is_empty() {
                    out.insert(f.json.into(), Value::Array(items));
                } else if !f.omit {
                    out.insert(f.json.into(), Value::Null);
                }
            }
            Card::Map(key_ty) => {
                let mut entries = Vec::new();
                for r in vals {
                    let Raw::Len(b) = r else {
                        return Err(at("a map entry is not length-delimited".into()));
                    };
                    let entry = wire::fields(b).map_err(at)?;
                    let key = match entry.iter().rev().find(|(n, _)| *n == 1) {
                        Some((_, k)) => value(key_ty, *k, depth).map_err(at)?,
                        None => zero_value(key_ty),
                    };
                    let key = match key {
                        Value::String(s) => s,
                        other => other.to_string(),
                    };
                    let val = match entry.iter().rev().find(|(n, _)| *n == 2) {
                        Some((_, v)) => value(f.ty, *v, depth).map_err(at)?,
                        None => zero_value(f.ty),
                    };
                    entries.push((key, val));
                }
                if entries.is_empty() {
                    if !f.omit {
                        out.insert(f.json.into(), Value::Null);
                    }
                    continue;
                }
                // encoding/json writes a map's keys sorted.
                entries.sort_by(|a, b| a.0.cmp(&b.0));
                entries.dedup_by(|later, earlier| {
                    let same = later.0 == earlier.0;
                    if same {
                        std::mem::swap(later, earlier);
                    }
                    same
                });
                out.insert(f.json.into(), Value::Object(entries.into_iter().collect()));
            }
        }
    }
    Ok(out)
}

fn field_name(msg: &str, f: &Field) -> String {
    let ty = msg.rsplit('/').next().unwrap_or(msg);
    match f.json {
        "" => format!("{ty} field {}", f.num),
        j => format!("{ty}.{j}"),
    }
}

/// Sets a decoded field: an inlined struct's fields join the parent's.
fn put(out: &mut Map<String, Value>, f: &Field, v: Value) {
    match (f.inline, v) {
        (true, Value::Object(m)) => out.extend(m),
        (_, v) => {
            out.insert(f.json.into(), v);
        }
    }
}

/// Writes an absent plain field as encoding/json writes its zero value.
fn zero(out: &mut Map<String, Value>, f: &Field, depth: usize) -> Result<(), String> {
    match f.ty {
        Ty::Msg(i) => {
            let v = Value::Object(decode(i, &[], depth + 1)?);
            put(out, f, v);
        }
        Ty::Time
        | Ty::MicroTime
        | Ty::Duration
        | Ty::Quantity
        | Ty::IntOrString
        | Ty::RawExtension
        | Ty::FieldsV1 => {
            out.insert(f.json.into(), zero_value(f.ty));
        }
        _ if f.omit => {}
        _ => {
            out.insert(f.json.into(), zero_value(f.ty));
        }
    }
    Ok(())
}

/// The JSON of a Go zero value.
fn zero_value(ty: Ty) -> Value {
    match ty {
        Ty::String | Ty::Bytes => Value::String(String::new()),
        Ty::Int32 | Ty::Int64 | Ty::Uint32 | Ty::Uint64 | Ty::IntOrString => Value::from(0),
        Ty::Double => Value::from(0.0),
        Ty::Bool => Value::Bool(false),
        Ty::Duration => Value::String("0s".into()),
        Ty::Quantity => Value::String("0".into()),
        Ty::Msg(_) => Value::Object(Map::new()),
        Ty::Items(_) | Ty::Time | Ty::MicroTime | Ty::RawExtension | Ty::FieldsV1 => Value::Null,
    }
}

/// What encoding/json's `omitempty` leaves out of a plain value: "", 0,
/// false (a struct, even an empty one, is never left out).
fn is_empty_scalar(v: &Value) -> bool {
    match v {
        Value::String(s) => s.is_empty(),
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::Bool(b) => !b,
        _ => false,
    }
}

/// A Go string, number or bool (not a struct such as IntOrString).
fn plain(ty: Ty) -> bool {
    matches!(
        ty,
        Ty::String | Ty::Int32 | Ty::Int64 | Ty::Uint32 | Ty::Uint64 | Ty::Bool | Ty::Double
    )
}

fn packable(ty: Ty) -> bool {
    matches!(
        ty,
        Ty::Int32 | Ty::Int64 | Ty::Uint32 | Ty::Uint64 | Ty::Bool
    )
}

fn value(ty: Ty, r: Raw<'_>, depth: usize) -> Result<Value, String> {
    let mismatch = || format!("wire type does not fit {ty:?}");
    Ok(match (ty, r) {
        (Ty::Int32, Raw::Varint(v)) => Value::from(v as i32),
        (Ty::Int64, Raw::Varint(v)) => Value::from(v as i64),
        (Ty::Uint32, Raw::Varint(v)) => Value::from(v as u32),
        (Ty::Uint64, Raw::Varint(v)) => Value::from(v),
        (Ty::Bool, Raw::Varint(v)) => Value::Bool(v != 0),
        (Ty::Double, Raw::Fixed64(v)) => Number::from_f64(f64::from_bits(v))
            .map(Value::Number)
            .ok_or("a double that JSON cannot hold")?,
        (Ty::String, Raw::Len(b)) => Value::String(String::from_utf8_lossy(b).into_owned()),
        (Ty::Bytes, Raw::Len(b)) => {
            Value::String(base64::engine::general_purpose::STANDARD.encode(b))
        }
        (Ty::Msg(i), Raw::Len(b)) => Value::Object(decode(i, b, depth + 1)?),
        (Ty::Items(i), Raw::Len(b)) => decode(i, b, depth + 1)?
            .remove("items")
            .unwrap_or(Value::Null),
        (Ty::Time, Raw::Len(b)) => time(b, false)?,
        (Ty::MicroTime, Raw::Len(b)) => time(b, true)?,
        (Ty::Duration, Raw::Len(b)) => {
            let ns = scalar(b, 1)?.unwrap_or(0) as i64;
            Value::String(go_duration(ns))
        }
        (Ty::Quantity, Raw::Len(b)) => match text(b, 1)? {
            Some(s) if !s.is_empty() => Value::String(s),
            _ => Value::String("0".into()),
        },
        (Ty::IntOrString, Raw::Len(b)) => {
            if scalar(b, 1)? == Some(1) {
                Value::String(text(b, 3)?.unwrap_or_default())
            } else {
                Value::from(scalar(b, 2)?.unwrap_or(0) as i32)
            }
        }
        (Ty::RawExtension | Ty::FieldsV1, Raw::Len(b)) => match bytes_field(b, 1)? {
            None => Value::Null,
            Some(raw) => serde_json::from_slice(raw)
                .map_err(|e| format!("the embedded object is not JSON: {e}"))?,
        },
        _ => return Err(mismatch()),
    })
}

/// The last varint field `num` of a message.
fn scalar(b: &[u8], num: u32) -> Result<Option<u64>, String> {
    Ok(wire::fields(b)?
        .into_iter()
        .rev()
        .find_map(|(n, r)| match r {
            Raw::Varint(v) if n == num => Some(v),
            _ => None,
        }))
}

fn bytes_field(b: &[u8], num: u32) -> Result<Option<&[u8]>, String> {
    Ok(wire::fields(b)?
        .into_iter()
        .rev()
        .find_map(|(n, r)| match r {
            Raw::Len(v) if n == num => Some(v),
            _ => None,
        }))
}

fn text(b: &[u8], num: u32) -> Result<Option<String>, String> {
    Ok(bytes_field(b, num)?.map(|v| String::from_utf8_lossy(v).into_owned()))
}

/// metav1.Time (seconds only, as its Unmarshal keeps) or MicroTime
/// (microseconds), in UTC; an empty message is the zero time, `null`.
fn time(b: &[u8], micro: bool) -> Result<Value, String> {
    if b.is_empty() {
        return Ok(Value::Null);
    }
    let secs = scalar(b, 1)?.unwrap_or(0) as i64;
    let nanos = if micro {
        (scalar(b, 2)?.unwrap_or(0) as i32 / 1000) * 1000
    } else {
        0
    };
    let ts = jiff::Timestamp::new(secs, nanos).map_err(|e| format!("a time out of range: {e}"))?;
    let fmt = if micro {
        "%Y-%m-%dT%H:%M:%S%.6fZ"
    } else {
        "%Y-%m-%dT%H:%M:%SZ"
    };
    Ok(Value::String(ts.strftime(fmt).to_string()))
}

/// Go's `time.Duration.String`: "1h2m3.5s", "1.5ms", "0s".
pub(crate) fn go_duration(ns: i64) -> String {
    if ns == 0 {
        return "0s".into();
    }
    let neg = ns < 0;
    let u = ns.unsigned_abs();
    let mut s = if u < 1_000_000_000 {
        let (scale, unit) = match u {
            0..1_000 => (1, "ns"),
            1_000..1_000_000 => (1_000, "µs"),
            _ => (1_000_000, "ms"),
        };
        format!("{}{unit}", frac(u, scale))
    } else {
        let secs = u / 1_000_000_000;
        let mut out = format!("{}s", frac(u % 60_000_000_000, 1_000_000_000));
        let mins = secs / 60;
        if mins > 0 {
            out = format!("{}m{out}", mins % 60);
            let hours = mins / 60;
            if hours > 0 {
                out = format!("{hours}h{out}");
            }
        }
        out
    };
    if neg {
        s.insert(0, '-');
    }
    s
}

/// `v / scale` with its fraction, trailing zeros dropped.
fn frac(v: u64, scale: u64) -> String {
    let (int, rest) = (v / scale, v % scale);
    if rest == 0 {
        return int.to_string();
    }
    let digits = scale.ilog10() as usize;
    let f = format!("{rest:0digits$}");
    format!("{int}.{}", f.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_go_writes_them() {
        let cases = [
            (0, "0s"),
            (1, "1ns"),
            (1_500, "1.5µs"),
            (1_500_000, "1.5ms"),
            (1_500_000_000, "1.5s"),
            (60_000_000_000, "1m0s"),
            (3_600_000_000_000, "1h0m0s"),
            (3_723_500_000_000, "1h2m3.5s"),
            (-90_000_000_000, "-1m30s"),
        ];
        for (ns, text) in cases {
            assert_eq!(go_duration(ns), text, "{ns}");
        }
    }

    #[test]
    fn times_keep_seconds_and_micro_times_microseconds() {
        // {seconds: 1700000000, nanos: 123456789}
        let mut b = Vec::new();
        wire::put_key(&mut b, 1, wire::VARINT);
        wire::put_varint(&mut b, 1_700_000_000);
        wire::put_key(&mut b, 2, wire::VARINT);
        wire::put_varint(&mut b, 123_456_789);
        assert_eq!(time(&b, false), Ok(Value::from("2023-11-14T22:13:20Z")));
        assert_eq!(
            time(&b, true),
            Ok(Value::from("2023-11-14T22:13:20.123456Z"))
        );
        assert_eq!(time(&[], false), Ok(Value::Null));
    }
}
