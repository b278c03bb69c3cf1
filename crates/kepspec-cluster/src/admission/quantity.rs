//! `resource.Quantity` parsing: `500m`, `2`, `1.5`, `8Gi`, `1e3`, `100M`.

use serde_json::Value;

/// The quantity in thousandths of a unit, rounded up like
/// `Quantity.MilliValue()`. `None` when the text is not a quantity.
pub(crate) fn parse_milli(text: &str) -> Option<i128> {
    let text = text.trim();
    let (number, suffix) = split_suffix(text)?;
    let (negative, digits) = match number.as_bytes().first()? {
        b'-' => (true, &number[1..]),
        b'+' => (false, &number[1..]),
        _ => (false, number),
    };
    let (int_part, frac_part) = digits.split_once('.').unwrap_or((digits, ""));
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    if !int_part
        .bytes()
        .chain(frac_part.bytes())
        .all(|b| b.is_ascii_digit())
    {
        return None;
    }
    // value = mantissa * 10^exp10 * 2^exp2, in milli-units: exp10 + 3.
    let mantissa: i128 = format!("{int_part}{frac_part}").parse().ok()?;
    let frac_len = i32::try_from(frac_part.len()).ok()?;
    let (exp10, exp2) = suffix_exponents(suffix)?;
    let mut num = mantissa;
    let mut den: i128 = 1;
    let e10 = exp10 + 3 - frac_len;
    if e10 >= 0 {
        num = num.checked_mul(10i128.checked_pow(e10.unsigned_abs())?)?;
    } else {
        den = 10i128.checked_pow(e10.unsigned_abs())?;
    }
    num = num.checked_mul(2i128.checked_pow(exp2)?)?;
    let value = (num + den - 1) / den;
    Some(if negative { -value } else { value })
}

/// The quantity at `v` (a JSON string or number) in thousandths.
pub(crate) fn milli_of(v: &Value) -> Option<i128> {
    match v {
        Value::String(s) => parse_milli(s),
        Value::Number(n) => parse_milli(&n.to_string()),
        _ => None,
    }
}

fn split_suffix(text: &str) -> Option<(&str, &str)> {
    // A decimal exponent (`1e3`, `1E-2`) is a suffix too.
    if let Some(pos) = text.find(['e', 'E']) {
        if pos > 0
            && text[pos + 1..]
                .trim_start_matches(['+', '-'])
                .bytes()
                .all(|b| b.is_ascii_digit())
            && pos + 1 < text.len()
        {
            return Some((&text[..pos], &text[pos..]));
        }
    }
    let idx = text
        .find(|c: char| c.is_ascii_alphabetic())
        .unwrap_or(text.len());
    Some((&text[..idx], &text[idx..]))
}

fn suffix_exponents(suffix: &str) -> Option<(i32, u32)> {
    Some(match suffix {
        "" => (0, 0),
        "n" => (-9, 0),
        "u" => (-6, 0),
        "m" => (-3, 0),
        "k" => (3, 0),
        "M" => (6, 0),
        "G" => (9, 0),
        "T" => (12, 0),
        "P" => (15, 0),
        "E" => (18, 0),
        "Ki" => (0, 10),
        "Mi" => (0, 20),
        "Gi" => (0, 30),
        "Ti" => (0, 40),
        "Pi" => (0, 50),
        "Ei" => (0, 60),
        s if s.starts_with(['e', 'E']) => (s[1..].parse().ok()?, 0),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_usual_forms() {
        assert_eq!(parse_milli("500m"), Some(500));
        assert_eq!(parse_milli("2"), Some(2000));
        assert_eq!(parse_milli("1.5"), Some(1500));
        assert_eq!(parse_milli("0.1"), Some(100));
        assert_eq!(parse_milli("1Ki"), Some(1024 * 1000));
        assert_eq!(parse_milli("8Gi"), Some(8 * (1i128 << 30) * 1000));
        assert_eq!(parse_milli("100M"), Some(100_000_000 * 1000));
        assert_eq!(parse_milli("1e3"), Some(1_000_000));
        assert_eq!(parse_milli("1n"), Some(1), "rounded up to a milli");
        assert_eq!(parse_milli("-1"), Some(-1000));
        assert_eq!(milli_of(&serde_json::json!(3)), Some(3000));
    }

    #[test]
    fn rejects_garbage() {
        assert_eq!(parse_milli(""), None);
        assert_eq!(parse_milli("abc"), None);
        assert_eq!(parse_milli("1Qi"), None);
        assert_eq!(parse_milli("."), None);
        assert_eq!(parse_milli("99999999999999999999999999999999999999E"), None);
    }
}
