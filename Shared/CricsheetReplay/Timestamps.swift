import Foundation

/// SportMonks timestamps ("2019-07-14T14:00:00.000000Z") for a replay that starts on the match's first day.
///
/// A match played over several dates (a Test: Cricsheet has no per-ball day, only `info.dates`) has its
/// deliveries spread evenly over them: day d's share starts at the start hour of date d, one delivery every
/// `secondsPerDelivery`, so the balls' `updated_at` tell which day of the match it is.
struct Timestamps: Sendable {
    let start: Date
    let secondsPerDelivery: Int
    /// Deliveries per day of play (all of them when the match has one date).
    let deliveriesPerDay: Int

    init(firstDay: String?, startHourUTC: Int, secondsPerDelivery: Int, days: Int = 1, totalDeliveries: Int = 0) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = (firstDay ?? "2000-01-01").split(separator: "-").compactMap { Int($0) }
        let components = DateComponents(year: parts.count > 0 ? parts[0] : 2000, month: parts.count > 1 ? parts[1] : 1,
                                        day: parts.count > 2 ? parts[2] : 1, hour: startHourUTC)
        start = calendar.date(from: components) ?? Date(timeIntervalSince1970: 0)
        self.secondsPerDelivery = secondsPerDelivery
        let days = max(1, days)
        deliveriesPerDay = days > 1 ? max(1, (totalDeliveries + days - 1) / days) : Int.max
    }

    /// The match start.
    var startingAt: String { Self.format(start) }
    /// When delivery `matchIndex` (0-based) was posted.
    func delivery(_ matchIndex: Int) -> String {
        let day = matchIndex / deliveriesPerDay, index = matchIndex % deliveriesPerDay
        return Self.format(start.addingTimeInterval(TimeInterval(day * 86_400 + (index + 1) * secondsPerDelivery)))
    }
    /// The day before the match (for static objects such as teams and players).
    var reference: String { Self.format(start.addingTimeInterval(-86_400)) }

    static func format(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.000000Z", c.year ?? 0, c.month ?? 0, c.day ?? 0,
                      c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
    }
}
