import Foundation

/// SportMonks timestamps ("2019-07-14T14:00:00.000000Z") for a replay that starts on the match's first day.
///
/// A match played over several dates has its deliveries spread over them as `MatchDays` says: day d's
/// share starts at the start hour of date d, one delivery every `secondsPerDelivery`, so the balls'
/// `updated_at` tell which day of the match it is.
struct Timestamps: Sendable {
    let start: Date
    let secondsPerDelivery: Int
    let days: MatchDays

    /// - Parameter start: when the first day starts; nil: `startHourUTC` on `firstDay` ("2019-07-14").
    init(firstDay: String?, startHourUTC: Int, secondsPerDelivery: Int, days: MatchDays = MatchDays(dates: 1, totalDeliveries: 1),
         start: Date? = nil) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = (firstDay ?? "2000-01-01").split(separator: "-").compactMap { Int($0) }
        let components = DateComponents(year: parts.count > 0 ? parts[0] : 2000, month: parts.count > 1 ? parts[1] : 1,
                                        day: parts.count > 2 ? parts[2] : 1, hour: startHourUTC)
        self.start = start ?? calendar.date(from: components) ?? Date(timeIntervalSince1970: 0)
        self.secondsPerDelivery = secondsPerDelivery
        self.days = days
    }

    /// The match start.
    var startingAt: String { Self.format(start) }
    /// When delivery `matchIndex` (0-based) was posted.
    func delivery(_ matchIndex: Int) -> String {
        let day = days.day(ofDelivery: matchIndex), index = matchIndex - day * days.deliveriesPerDay
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
