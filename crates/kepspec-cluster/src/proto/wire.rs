//! The protobuf wire format: varints, tags and length-delimited fields.

/// Wire type of a varint.
pub(crate) const VARINT: u8 = 0;
/// Wire type of a 64-bit fixed value.
pub(crate) const FIXED64: u8 = 1;
/// Wire type of a length-delimited value.
pub(crate) const LEN: u8 = 2;
/// Wire type of a 32-bit fixed value.
pub(crate) const FIXED32: u8 = 5;

/// One field as read from the wire.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Raw<'a> {
    Varint(u64),
    Fixed64(u64),
    Fixed32(u32),
    Len(&'a [u8]),
}

/// Reads the fields of one message in wire order, as (number, value).
pub(crate) fn fields(mut buf: &[u8]) -> Result<Vec<(u32, Raw<'_>)>, String> {
    let mut out = Vec::new();
    while !buf.is_empty() {
        let key = varint(&mut buf)?;
        let num = u32::try_from(key >> 3).map_err(|_| "field number out of range".to_string())?;
        if num == 0 {
            return Err("field number 0".into());
        }
        let raw = match (key & 7) as u8 {
            VARINT => Raw::Varint(varint(&mut buf)?),
            FIXED64 => Raw::Fixed64(u64::from_le_bytes(
                take(&mut buf, 8)?.try_into().unwrap_or_default(),
            )),
            FIXED32 => Raw::Fixed32(u32::from_le_bytes(
                take(&mut buf, 4)?.try_into().unwrap_or_default(),
            )),
            LEN => {
                let n = usize::try_from(varint(&mut buf)?)
                    .map_err(|_| "length out of range".to_string())?;
                Raw::Len(take(&mut buf, n)?)
            }
            t => return Err(format!("field {num} has the unknown wire type {t}")),
        };
        out.push((num, raw));
    }
    Ok(out)
}

fn take<'a>(buf: &mut &'a [u8], n: usize) -> Result<&'a [u8], String> {
    if buf.len() < n {
        return Err("unexpected EOF".into());
    }
    let (head, rest) = buf.split_at(n);
    *buf = rest;
    Ok(head)
}

/// Reads a varint.
pub(crate) fn varint(buf: &mut &[u8]) -> Result<u64, String> {
    let mut v: u64 = 0;
    for shift in (0..70).step_by(7) {
        let Some((&b, rest)) = buf.split_first() else {
            return Err("unexpected EOF".into());
        };
        *buf = rest;
        if shift == 63 && b > 1 {
            return Err("integer overflow".into());
        }
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Ok(v);
        }
    }
    Err("integer overflow".into())
}

/// Appends a varint.
pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends a field's key.
pub(crate) fn put_key(out: &mut Vec<u8>, num: u32, wire: u8) {
    put_varint(out, (u64::from(num) << 3) | u64::from(wire));
}

/// Appends a length-delimited field.
pub(crate) fn put_len(out: &mut Vec<u8>, num: u32, bytes: &[u8]) {
    put_key(out, num, LEN);
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_and_negative_int32_takes_ten_bytes() {
        for v in [0u64, 1, 127, 128, 300, u64::MAX, (-1i64) as u64] {
            let mut out = Vec::new();
            put_varint(&mut out, v);
            let mut buf = out.as_slice();
            assert_eq!(varint(&mut buf), Ok(v));
            assert!(buf.is_empty());
        }
        let mut out = Vec::new();
        put_varint(&mut out, i64::from(-1i32) as u64);
        assert_eq!(out.len(), 10);
    }

    #[test]
    fn a_truncated_message_is_an_error_not_a_panic() {
        assert!(fields(&[0x0a, 0x05, b'a']).is_err());
        assert!(fields(&[0x80]).is_err());
        assert!(fields(&[0x0b]).is_err()); // wire type 3 (groups) is not used
        assert_eq!(fields(&[0x08, 0x96, 0x01]), Ok(vec![(1, Raw::Varint(150))]));
    }
}
