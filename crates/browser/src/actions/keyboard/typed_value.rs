//! What `fill` accepts for inputs whose value has a format of its own (date, time,
//! datetime-local, month, week, color, range, number), and the value it sets: the
//! input's own value format (`2015-03-10`, `15:16`, `2015-W11`, `#ff0000`, …) and the
//! forms people type (`03/10/2015`, `3:16 PM`, `March 2015`, `red`), normalised to the
//! value format. Pure text in, text out; the page is not involved (setting and reading
//! back is `keyboard.rs`).
//!
//! Slashed dates are month first (`03/10/2015` is March 10), as the US forms that
//! pickers commonly show; a day-first reading is never guessed. Years have four digits.

/// An input type whose value has its own format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Date,
    Time,
    DateTimeLocal,
    Month,
    Week,
    Color,
    Range,
    Number,
}

impl Kind {
    /// The kind of an `<input type=…>`, if its value has a format of its own.
    pub fn of(input_type: &str) -> Option<Kind> {
        Some(match input_type {
            "date" => Kind::Date,
            "time" => Kind::Time,
            "datetime-local" => Kind::DateTimeLocal,
            "month" => Kind::Month,
            "week" => Kind::Week,
            "color" => Kind::Color,
            "range" => Kind::Range,
            "number" => Kind::Number,
            _ => return None,
        })
    }

    /// Typing into it fills its parts (month, day, year; hours, minutes…) rather than
    /// appending to its text.
    pub fn has_parts(self) -> bool {
        matches!(
            self,
            Kind::Date | Kind::Time | Kind::DateTimeLocal | Kind::Month | Kind::Week
        )
    }

    /// The forms `fill` accepts, for the message when a value is in none of them.
    pub fn formats(self) -> &'static str {
        match self {
            Kind::Date => {
                "a date field takes 2015-03-10 (its value format), 03/10/2015 or 3/10/2015 (month first), March 10, 2015 or 10 March 2015"
            }
            Kind::Time => {
                "a time field takes 15:16 or 15:16:30 (24-hour, its value format), 3:16 PM, 3:16:30 pm or 3 PM"
            }
            Kind::DateTimeLocal => {
                "a date-and-time field takes 2015-03-10T15:16 (its value format), or a date and a time as a date and a time field take them, e.g. 03/10/2015 3:16 PM or 2015-03-10 15:16"
            }
            Kind::Month => {
                "a month field takes 2015-03 (its value format), 03/2015, March 2015 or Mar 2015"
            }
            Kind::Week => {
                "a week field takes 2015-W11 (its value format), W11 2015, Week 11, 2015, or a date in that week (2015-03-10, 03/10/2015)"
            }
            Kind::Color => {
                "a colour field takes #ff0000 (its value format), #f00, rgb(255, 0, 0) or a basic colour name (red, navy, …)"
            }
            Kind::Range => "a range field takes a number, e.g. 42 or 2.5",
            Kind::Number => "a number field takes a number, e.g. 42, -2.5, 1e3 or 1,000",
        }
    }
}

/// `text` in the input's value format, or `None` when it is in no accepted form.
/// The empty string clears the field.
pub(crate) fn normalise(kind: Kind, text: &str) -> Option<String> {
    let text = text.trim();
    if text.is_empty() {
        return Some(String::new());
    }
    match kind {
        Kind::Date => date(text).map(|d| d.to_string()),
        Kind::Time => time(text).map(|t| t.to_string()),
        Kind::DateTimeLocal => date_time(text).map(|(d, t)| format!("{d}T{t}")),
        Kind::Month => month(text).map(|(year, month)| format!("{year:04}-{month:02}")),
        Kind::Week => week(text).map(|(year, week)| format!("{year:04}-W{week:02}")),
        Kind::Color => color(text).map(|[r, g, b]| format!("#{r:02x}{g:02x}{b:02x}")),
        Kind::Range | Kind::Number => number(text),
    }
}

/// A calendar date.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Date {
    year: u32,
    month: u32,
    day: u32,
}

impl std::fmt::Display for Date {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

/// A time of day; `millis` is the fraction of the second.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Time {
    hour: u32,
    minute: u32,
    second: u32,
    millis: u32,
}

impl std::fmt::Display for Time {
    /// The shortest valid form: seconds only when not zero, the fraction without its
    /// trailing zeros (as Chromium normalises datetime-local).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:02}:{:02}", self.hour, self.minute)?;
        if self.second != 0 || self.millis != 0 {
            write!(f, ":{:02}", self.second)?;
        }
        if self.millis != 0 {
            let fraction = format!("{:03}", self.millis);
            write!(f, ".{}", fraction.trim_end_matches('0'))?;
        }
        Ok(())
    }
}

/// The largest year a date input takes (HTML: 275760-09-13).
const MAX_YEAR: u32 = 275_760;

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

fn date(text: &str) -> Option<Date> {
    // ISO (the value format), or year first with slashes.
    for separator in ['-', '/'] {
        if let Some([y, m, d]) = split_numbers(text, separator).as_deref()
            && is_year(y)
            && is_short(m)
            && is_short(d)
        {
            return make_date(y, m, d);
        }
    }
    // Month first with slashes: 03/10/2015.
    if let Some([m, d, y]) = split_numbers(text, '/').as_deref()
        && is_short(m)
        && is_short(d)
        && is_year(y)
    {
        return make_date(y, m, d);
    }
    // With the month's name: March 10, 2015 / 10 March 2015 / Mar 10 2015.
    let words = words(text);
    let (month, day, year) = match words.as_slice() {
        [a, b, c] if month_of(a).is_some() => (month_of(a)?, *b, *c),
        [a, b, c] if month_of(b).is_some() => (month_of(b)?, *a, *c),
        _ => return None,
    };
    let day = strip_ordinal(day);
    if !is_short(day) || !is_year(year) {
        return None;
    }
    checked_date(year.parse().ok()?, month, day.parse().ok()?)
}

fn make_date(year: &str, month: &str, day: &str) -> Option<Date> {
    checked_date(year.parse().ok()?, month.parse().ok()?, day.parse().ok()?)
}

fn checked_date(year: u32, month: u32, day: u32) -> Option<Date> {
    let valid = (1..=MAX_YEAR).contains(&year)
        && (1..=12).contains(&month)
        && day >= 1
        && day <= days_in_month(year, month);
    valid.then_some(Date { year, month, day })
}

fn time(text: &str) -> Option<Time> {
    let lower = text.to_ascii_lowercase();
    // A 12-hour clock's suffix: "pm", "p.m.", "PM", with or without a space.
    let (clock, pm) = [("a.m.", false), ("p.m.", true), ("am", false), ("pm", true)]
        .iter()
        .find_map(|(suffix, pm)| {
            lower
                .strip_suffix(suffix)
                .map(|rest| (rest.trim_end(), Some(*pm)))
        })
        .unwrap_or((lower.as_str(), None));
    let parts: Vec<&str> = clock.split(':').collect();
    let (hour, minute, seconds) = match (parts.as_slice(), pm) {
        ([h], Some(_)) => (*h, None, None),
        ([h, m], _) => (*h, Some(*m), None),
        ([h, m, s], _) => (*h, Some(*m), Some(*s)),
        _ => return None,
    };
    if !is_short(hour) || minute.is_some_and(|m| !is_two(m)) {
        return None;
    }
    let mut hour: u32 = hour.parse().ok()?;
    let minute: u32 = minute.map_or(Some(0), |m| m.parse().ok())?;
    let (second, millis) = match seconds {
        None => (0, 0),
        Some(s) => {
            let (whole, fraction) = s.split_once('.').unwrap_or((s, ""));
            if !is_two(whole)
                || fraction.len() > 3
                || !fraction.chars().all(|c| c.is_ascii_digit())
                || s.contains('.') && fraction.is_empty()
            {
                return None;
            }
            let millis = format!("{fraction:0<3}").parse().ok()?;
            (whole.parse().ok()?, millis)
        }
    };
    match pm {
        Some(pm) => {
            if !(1..=12).contains(&hour) {
                return None;
            }
            hour = hour % 12 + if pm { 12 } else { 0 };
        }
        None if hour > 23 => return None,
        None => {}
    }
    (minute <= 59 && second <= 59).then_some(Time {
        hour,
        minute,
        second,
        millis,
    })
}

/// A date and a time: `2015-03-10T15:16`, or any date form then any time form,
/// separated by spaces or a comma.
fn date_time(text: &str) -> Option<(Date, Time)> {
    if let Some((d, t)) = text.split_once(['T', 't'])
        && let (Some(d), Some(t)) = (date(d), time(t))
    {
        return Some((d, t));
    }
    text.char_indices()
        .filter(|(_, c)| *c == ' ' || *c == ',')
        .find_map(|(at, _)| {
            let (d, t) = text.split_at(at);
            let t = t.trim_start_matches([' ', ',']);
            Some((date(d.trim_end_matches([' ', ',']))?, time(t)?))
        })
}

fn month(text: &str) -> Option<(u32, u32)> {
    let checked = |year: &str, month: u32| {
        let year: u32 = year.parse().ok()?;
        ((1..=MAX_YEAR).contains(&year) && (1..=12).contains(&month)).then_some((year, month))
    };
    for separator in ['-', '/'] {
        if let Some([y, m]) = split_numbers(text, separator).as_deref()
            && is_year(y)
            && is_short(m)
        {
            return checked(y, m.parse().ok()?);
        }
    }
    if let Some([m, y]) = split_numbers(text, '/').as_deref()
        && is_short(m)
        && is_year(y)
    {
        return checked(y, m.parse().ok()?);
    }
    match words(text).as_slice() {
        [m, y] if is_year(y) => checked(y, month_of(m)?),
        [y, m] if is_year(y) => checked(y, month_of(m)?),
        _ => None,
    }
}

fn week(text: &str) -> Option<(u32, u32)> {
    let checked = |year: &str, week: &str| {
        let year: u32 = year.parse().ok()?;
        let week: u32 = week.parse().ok()?;
        ((1..=MAX_YEAR).contains(&year) && week >= 1 && week <= weeks_in_year(year))
            .then_some((year, week))
    };
    let lower = text.to_ascii_lowercase();
    // 2015-W11, 2015 W11, 2015W11.
    if let Some((y, w)) = lower.split_once('w') {
        let y = y.trim_end_matches([' ', '-', ',']);
        if is_year(y) && is_short(w) {
            return checked(y, w);
        }
    }
    // W11 2015, W11-2015, Week 11, 2015, week 11 2015.
    let rest = lower
        .strip_prefix("week")
        .or_else(|| lower.strip_prefix('w'));
    if let Some(rest) = rest
        && let [w, y] = words(rest).as_slice()
        && is_short(w)
        && is_year(y)
    {
        return checked(y, w);
    }
    if let Some(rest) = rest
        && let Some((w, y)) = rest.trim().split_once('-')
        && is_short(w)
        && is_year(y)
    {
        return checked(y, w);
    }
    // A date: the ISO week it falls in.
    date(text).map(iso_week)
}

fn color(text: &str) -> Option<[u8; 3]> {
    let lower = text.to_ascii_lowercase();
    if let Some(hex) = lower.strip_prefix('#').or_else(|| {
        (lower.len() == 6 && lower.chars().all(|c| c.is_ascii_hexdigit())).then_some(lower.as_str())
    }) {
        if !hex.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        let channel = |s: &str| u8::from_str_radix(s, 16).ok();
        return match hex.len() {
            3 => {
                let doubled: Vec<u8> = hex
                    .chars()
                    .map(|c| channel(&format!("{c}{c}")))
                    .collect::<Option<_>>()?;
                Some([doubled[0], doubled[1], doubled[2]])
            }
            6 => Some([
                channel(&hex[0..2])?,
                channel(&hex[2..4])?,
                channel(&hex[4..6])?,
            ]),
            _ => None,
        };
    }
    if let Some(inner) = lower
        .strip_prefix("rgb(")
        .and_then(|rest| rest.strip_suffix(')'))
    {
        let channels: Vec<u8> = inner
            .split([',', ' '])
            .filter(|part| !part.is_empty())
            .map(|part| part.parse().ok())
            .collect::<Option<_>>()?;
        return match channels.as_slice() {
            [r, g, b] => Some([*r, *g, *b]),
            _ => None,
        };
    }
    let name = lower.replace([' ', '-'], "");
    NAMED_COLORS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, rgb)| *rgb)
}

/// The CSS basic colours, and a few more everyone names.
const NAMED_COLORS: [(&str, [u8; 3]); 20] = [
    ("black", [0, 0, 0]),
    ("silver", [192, 192, 192]),
    ("gray", [128, 128, 128]),
    ("grey", [128, 128, 128]),
    ("white", [255, 255, 255]),
    ("maroon", [128, 0, 0]),
    ("red", [255, 0, 0]),
    ("purple", [128, 0, 128]),
    ("fuchsia", [255, 0, 255]),
    ("magenta", [255, 0, 255]),
    ("green", [0, 128, 0]),
    ("lime", [0, 255, 0]),
    ("olive", [128, 128, 0]),
    ("yellow", [255, 255, 0]),
    ("navy", [0, 0, 128]),
    ("blue", [0, 0, 255]),
    ("teal", [0, 128, 128]),
    ("aqua", [0, 255, 255]),
    ("cyan", [0, 255, 255]),
    ("orange", [255, 165, 0]),
];

/// A number in the shortest decimal form (`1e3` → `1000`, `+2.50` → `2.5`);
/// thousands separators are taken only in their proper places (`1,000`, not `1,0`).
fn number(text: &str) -> Option<String> {
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    if !unsigned.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        return None;
    }
    let plain = if unsigned.contains(',') {
        let (whole, fraction) = unsigned.split_once('.').unwrap_or((unsigned, ""));
        let groups: Vec<&str> = whole.split(',').collect();
        let grouped = (1..=3).contains(&groups[0].len())
            && groups[1..].iter().all(|g| g.len() == 3)
            && groups.iter().all(|g| g.chars().all(|c| c.is_ascii_digit()));
        if !grouped {
            return None;
        }
        let sign = &text[..text.len() - unsigned.len()];
        let fraction = if unsigned.contains('.') {
            format!(".{fraction}")
        } else {
            String::new()
        };
        format!("{sign}{}{fraction}", groups.concat())
    } else {
        text.to_string()
    };
    if !plain
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '+' | '-' | '.' | 'e' | 'E'))
    {
        return None;
    }
    let value: f64 = plain.parse().ok()?;
    if !value.is_finite() {
        return None;
    }
    // -0 is 0.
    Some(format!("{}", if value == 0.0 { 0.0 } else { value }))
}

fn split_numbers(text: &str, separator: char) -> Option<Vec<&str>> {
    let parts: Vec<&str> = text.split(separator).map(str::trim).collect();
    parts
        .iter()
        .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
        .then_some(parts)
}

/// Words separated by spaces, commas or dots (`Mar. 10, 2015`).
fn words(text: &str) -> Vec<&str> {
    text.split([' ', ',', '.'])
        .filter(|w| !w.is_empty())
        .collect()
}

/// 1–12 for a month's name or its first three letters (`Sept` too).
fn month_of(word: &str) -> Option<u32> {
    let word = word.to_ascii_lowercase();
    if word.len() < 3 {
        return None;
    }
    MONTHS
        .iter()
        .position(|m| m.starts_with(&word) || word == "sept" && *m == "september")
        .map(|i| i as u32 + 1)
}

fn strip_ordinal(day: &str) -> &str {
    ["st", "nd", "rd", "th"]
        .iter()
        .find_map(|s| day.strip_suffix(s))
        .unwrap_or(day)
}

fn is_year(s: &str) -> bool {
    s.len() >= 4 && s.chars().all(|c| c.is_ascii_digit())
}

fn is_short(s: &str) -> bool {
    (1..=2).contains(&s.len()) && s.chars().all(|c| c.is_ascii_digit())
}

fn is_two(s: &str) -> bool {
    s.len() == 2 && s.chars().all(|c| c.is_ascii_digit())
}

fn is_leap(year: u32) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// 1 (Monday) to 7 (Sunday).
fn weekday(date: Date) -> u32 {
    // Days since 1970-01-01 (a Thursday), by the civil-calendar algorithm.
    let (year, month) = if date.month <= 2 {
        (i64::from(date.year) - 1, i64::from(date.month) + 9)
    } else {
        (i64::from(date.year), i64::from(date.month) - 3)
    };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * month + 2) / 5 + i64::from(date.day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    let days = era * 146_097 + day_of_era - 719_468;
    ((days + 3).rem_euclid(7) + 1) as u32
}

fn day_of_year(date: Date) -> u32 {
    (1..date.month)
        .map(|m| days_in_month(date.year, m))
        .sum::<u32>()
        + date.day
}

/// 53 when the year starts on a Thursday, or on a Wednesday in a leap year.
fn weeks_in_year(year: u32) -> u32 {
    let first = weekday(Date {
        year,
        month: 1,
        day: 1,
    });
    if first == 4 || first == 3 && is_leap(year) {
        53
    } else {
        52
    }
}

/// The ISO 8601 (year, week) a date falls in.
fn iso_week(date: Date) -> (u32, u32) {
    let week = (day_of_year(date) + 10 - weekday(date)) / 7;
    if week < 1 {
        (date.year - 1, weeks_in_year(date.year - 1))
    } else if week > weeks_in_year(date.year) {
        (date.year + 1, 1)
    } else {
        (date.year, week)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(kind: Kind, text: &str, expect: Option<&str>) {
        assert_eq!(
            normalise(kind, text).as_deref(),
            expect,
            "{kind:?} {text:?}"
        );
    }

    #[test]
    fn a_date_in_its_value_format_or_a_typed_form_becomes_the_value_format() {
        for text in [
            "2015-03-10",
            " 2015-03-10 ",
            "2015-3-10",
            "2015/03/10",
            "03/10/2015",
            "3/10/2015",
            "March 10, 2015",
            "march 10 2015",
            "Mar 10, 2015",
            "Mar. 10, 2015",
            "10 March 2015",
            "10th March 2015",
        ] {
            check(Kind::Date, text, Some("2015-03-10"));
        }
        check(Kind::Date, "02/29/2016", Some("2016-02-29"));
        check(Kind::Date, "Sept 1, 2015", Some("2015-09-01"));
    }

    #[test]
    fn a_date_that_does_not_exist_or_is_ambiguous_is_not_taken() {
        for text in [
            "02/29/2015",
            "2015-02-30",
            "13/10/2015",
            "25/03/2015",
            "3/10/15",
            "2015-03",
            "2015-03-10T15:16",
            "tomorrow",
            "Ma 10 2015",
            "March 32, 2015",
            "0000-01-01",
        ] {
            check(Kind::Date, text, None);
        }
    }

    #[test]
    fn a_time_on_the_24_or_12_hour_clock_becomes_the_value_format() {
        for (text, value) in [
            ("15:16", "15:16"),
            ("03:16", "03:16"),
            ("3:16", "03:16"),
            ("15:16:30", "15:16:30"),
            ("15:16:00", "15:16"),
            ("15:16:30.5", "15:16:30.5"),
            ("15:16:30.250", "15:16:30.25"),
            ("3:16 PM", "15:16"),
            ("3:16pm", "15:16"),
            ("3:16 p.m.", "15:16"),
            ("3:16:30 PM", "15:16:30"),
            ("3 PM", "15:00"),
            ("12:05 AM", "00:05"),
            ("12:05 PM", "12:05"),
            ("11:59 pm", "23:59"),
            ("00:00", "00:00"),
        ] {
            check(Kind::Time, text, Some(value));
        }
        for text in [
            "24:00",
            "13:00 PM",
            "0:30 AM",
            "15:60",
            "15:16:61",
            "15",
            "3:6",
            "15:16:30.",
            "15:16:30.1234",
            "noon",
        ] {
            check(Kind::Time, text, None);
        }
    }

    #[test]
    fn a_date_and_time_joins_any_date_form_and_any_time_form() {
        for text in [
            "2015-03-10T15:16",
            "2015-03-10t15:16",
            "2015-03-10 15:16",
            "2015-03-10T15:16:00",
            "03/10/2015 3:16 PM",
            "03/10/2015, 3:16 PM",
            "3/10/2015 15:16",
            "March 10, 2015 3:16 pm",
            "March 10, 2015, 15:16",
        ] {
            check(Kind::DateTimeLocal, text, Some("2015-03-10T15:16"));
        }
        check(
            Kind::DateTimeLocal,
            "2015-03-10T15:16:30",
            Some("2015-03-10T15:16:30"),
        );
        for text in [
            "2015-03-10",
            "15:16",
            "2015-03-10T25:00",
            "03/10/2015 at 3 PM",
        ] {
            check(Kind::DateTimeLocal, text, None);
        }
    }

    #[test]
    fn a_month_by_number_or_name_becomes_the_value_format() {
        for text in [
            "2015-03",
            "2015-3",
            "2015/03",
            "03/2015",
            "3/2015",
            "March 2015",
            "Mar 2015",
            "mar, 2015",
            "2015 March",
        ] {
            check(Kind::Month, text, Some("2015-03"));
        }
        for text in ["2015-13", "13/2015", "2015-03-10", "March", "Smarch 2015"] {
            check(Kind::Month, text, None);
        }
    }

    #[test]
    fn a_week_by_number_or_by_a_date_in_it_becomes_the_value_format() {
        for text in [
            "2015-W11",
            "2015-w11",
            "2015 W11",
            "2015W11",
            "W11 2015",
            "w11-2015",
            "Week 11, 2015",
            "week 11 2015",
            "2015-03-10",
            "03/10/2015",
            "March 15, 2015",
        ] {
            check(Kind::Week, text, Some("2015-W11"));
        }
        // ISO weeks cross year ends; 2015 has 53 weeks, 2014 has 52.
        check(Kind::Week, "2015-W53", Some("2015-W53"));
        check(Kind::Week, "2016-01-01", Some("2015-W53"));
        check(Kind::Week, "2014-12-29", Some("2015-W01"));
        check(Kind::Week, "2014-W53", None);
        check(Kind::Week, "2015-W00", None);
        check(Kind::Week, "W11", None);
    }

    #[test]
    fn a_colour_as_hex_rgb_or_a_basic_name_becomes_lowercase_hex() {
        for text in [
            "#ff0000",
            "#FF0000",
            "ff0000",
            "#f00",
            "rgb(255, 0, 0)",
            "RGB(255 0 0)",
            "red",
            "Red",
        ] {
            check(Kind::Color, text, Some("#ff0000"));
        }
        check(Kind::Color, "navy", Some("#000080"));
        for text in [
            "#ff000",
            "#gg0000",
            "rgb(256, 0, 0)",
            "rgb(1, 2)",
            "reddish",
        ] {
            check(Kind::Color, text, None);
        }
    }

    #[test]
    fn a_number_in_any_usual_writing_becomes_its_shortest_decimal_form() {
        for (text, value) in [
            ("42", "42"),
            ("+42", "42"),
            ("-2.5", "-2.5"),
            ("2.50", "2.5"),
            (".5", "0.5"),
            ("1e3", "1000"),
            ("1,000", "1000"),
            ("-1,234,567.5", "-1234567.5"),
            ("-0", "0"),
            ("150", "150"),
        ] {
            check(Kind::Number, text, Some(value));
            check(Kind::Range, text, Some(value));
        }
        for text in ["", " "] {
            check(Kind::Number, text, Some(""));
        }
        for text in [
            "abc", "1,00", "12,3456", "inf", "NaN", "1.2.3", "$5", "5 kg", "--5",
        ] {
            check(Kind::Number, text, None);
        }
    }

    #[test]
    fn weekdays_and_iso_weeks_follow_the_calendar() {
        let day = |year, month, day| Date { year, month, day };
        assert_eq!(weekday(day(1970, 1, 1)), 4);
        assert_eq!(weekday(day(2015, 3, 10)), 2);
        assert_eq!(weekday(day(2000, 2, 29)), 2);
        assert_eq!(weekday(day(2024, 12, 29)), 7);
        assert_eq!(weeks_in_year(2015), 53);
        assert_eq!(weeks_in_year(2020), 53);
        assert_eq!(weeks_in_year(2021), 52);
        assert_eq!(iso_week(day(2021, 1, 3)), (2020, 53));
        assert_eq!(iso_week(day(2024, 12, 30)), (2025, 1));
    }

    #[test]
    fn every_kind_names_its_value_format_when_refusing() {
        for (kind, example) in [
            (Kind::Date, "2015-03-10"),
            (Kind::Time, "15:16"),
            (Kind::DateTimeLocal, "2015-03-10T15:16"),
            (Kind::Month, "2015-03"),
            (Kind::Week, "2015-W11"),
            (Kind::Color, "#ff0000"),
            (Kind::Range, "42"),
            (Kind::Number, "42"),
        ] {
            assert!(kind.formats().contains(example), "{kind:?}");
            check(kind, example, Some(example));
        }
        assert_eq!(Kind::of("datetime-local"), Some(Kind::DateTimeLocal));
        assert_eq!(Kind::of("text"), None);
    }
}
