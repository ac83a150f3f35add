/// Calendar arithmetic on proleptic Gregorian dates without Foundation's calendars (the timestamp readers of
/// SportMonks and PostgreSQL use it on every value).
public enum CivilDate {
    /// Days since 1970-01-01 of `year`-`month`-`day` (Howard Hinnant's days_from_civil).
    public static func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
