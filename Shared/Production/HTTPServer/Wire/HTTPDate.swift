import Runtime

/// The `Date` header's IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 §5.6.7), formatted once per
/// second. Loop-confined: each server thread keeps its own.
struct HTTPDate {
    private var second: Int64 = .min
    private var text: [UInt8] = []

    /// The date for `unixSeconds`, reusing the last one within the same second.
    mutating func bytes(unixSeconds: Int64) -> [UInt8] {
        if unixSeconds != second {
            second = unixSeconds
            text = Array(Self.format(unixSeconds: unixSeconds).utf8)
        }
        return text
    }

    static func format(unixSeconds: Int64) -> String {
        let days = unixSeconds >= 0 ? unixSeconds / 86_400 : (unixSeconds - 86_399) / 86_400
        let secondsOfDay = unixSeconds - days * 86_400
        let date = CivilDate.date(daysSinceEpoch: days)
        let weekday = Int(((days % 7) + 11) % 7)  // 1970-01-01 was a Thursday
        let dayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(dayNames[weekday]), \(two(date.day)) \(monthNames[Int(date.month - 1)]) \(date.year) "
            + "\(two(secondsOfDay / 3600)):\(two(secondsOfDay / 60 % 60)):\(two(secondsOfDay % 60)) GMT"
    }
}
