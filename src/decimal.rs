//! Numbers written in decimal without a formatter: move numbers, NAGs, dates and tags'
//! numbers are written for every game.

/// The numbers 0 to 99 as two digits each ("00", "01", … "99").
const DIGIT_PAIRS: &str = concat!(
    "0001020304050607080910111213141516171819",
    "2021222324252627282930313233343536373839",
    "4041424344454647484950515253545556575859",
    "6061626364656667686970717273747576777879",
    "8081828384858687888990919293949596979899",
);

/// Append `n` in decimal (move numbers and NAGs, written for every move, and tags' numbers:
/// no formatter). The digits are copied from [`DIGIT_PAIRS`] two at a time, in pieces of a
/// length the compiler knows, so each is a plain store rather than a call. Inlined for the
/// numbers below 100 (nearly every move number); the others take a call.
#[inline(always)]
pub(crate) fn push_decimal(out: &mut String, n: u32) {
    let n = n as usize;
    if n < 10 {
        out.push_str(&DIGIT_PAIRS[2 * n + 1..2 * n + 2]);
    } else if n < 100 {
        push_two_digits(out, n as u32);
    } else {
        push_large_decimal(out, n);
    }
}

/// Append `n`, below 100, as two digits (`07`): a date's month or day, or the low digits of
/// a number.
#[inline(always)]
pub(crate) fn push_two_digits(out: &mut String, n: u32) {
    let n = n as usize;
    out.push_str(&DIGIT_PAIRS[2 * n..2 * n + 2]);
}

/// [`push_decimal`] of a number of three digits or more.
#[inline(never)]
fn push_large_decimal(out: &mut String, n: usize) {
    push_decimal(out, (n / 100) as u32);
    push_two_digits(out, (n % 100) as u32);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_are_written_as_rust_writes_them() {
        for n in [
            0,
            7,
            9,
            10,
            42,
            99,
            100,
            101,
            110,
            999,
            1000,
            1005,
            65_535,
            u32::MAX,
        ] {
            let mut out = String::from("x");
            push_decimal(&mut out, n);
            assert_eq!(out, format!("x{n}"));
        }
    }
}
