import Foundation

/// SportMonks date and time texts ("2026-10-09T13:00:00.000000Z", "2026-10-09") in UTC.
public enum SportMonksTime {
    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// "YYYY-MM-DDTHH:MM:SS.000000Z".
    public static func format(_ date: Date) -> String {
        let c = utc.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d-%02d-%02dT%02d:%02d:%02d.000000Z", c.year ?? 0, c.month ?? 0, c.day ?? 0,
                      c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
    }

    /// "YYYY-MM-DD".
    public static func formatDay(_ date: Date) -> String {
        let c = utc.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0)
    }

    /// Midnight UTC of the day containing `date`.
    public static func startOfDay(_ date: Date) -> Date { utc.startOfDay(for: date) }

    /// `day` ("YYYY-MM-DD") at `hour` UTC; 2000-01-01 when missing or unreadable.
    public static func day(_ day: String?, hour: Int) -> Date {
        let parts = (day ?? "").split(separator: "-").compactMap { Int($0) }
        let components = DateComponents(year: parts.count > 0 ? parts[0] : 2000, month: parts.count > 1 ? parts[1] : 1,
                                        day: parts.count > 2 ? parts[2] : 1, hour: hour)
        return utc.date(from: components) ?? Date(timeIntervalSince1970: 946_684_800)
    }

    /// Parses a `filter[starts_between]` bound: "YYYY-MM-DD" (start of day, or end of day when
    /// `endOfDay`) or "YYYY-MM-DDTHH:MM:SS" (optionally with fraction and Z).
    public static func parseBound(_ text: String, endOfDay: Bool) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let halves = trimmed.split(separator: "T", maxSplits: 1).map(String.init)
        let dateParts = halves.first?.split(separator: "-").compactMap { Int($0) } ?? []
        guard dateParts.count == 3 else { return nil }
        var components = DateComponents(year: dateParts[0], month: dateParts[1], day: dateParts[2])
        if halves.count == 2 {
            let clock = halves[1].prefix { $0 != "." && $0 != "Z" && $0 != "+" }
            let timeParts = clock.split(separator: ":").compactMap { Int($0) }
            guard timeParts.count >= 2 else { return nil }
            components.hour = timeParts[0]
            components.minute = timeParts[1]
            components.second = timeParts.count > 2 ? timeParts[2] : 0
        } else if endOfDay {
            components.hour = 23; components.minute = 59; components.second = 59
        }
        return utc.date(from: components)
    }
}
