/// How a replay spreads a match over its days of play. Cricsheet has no per-ball day, only
/// `info.dates`: a match of several dates has its deliveries shared evenly over them (the last day
/// takes what is left), and each day but the last ends at stumps.
public struct MatchDays: Sendable, Equatable {
    /// Days of play (1 for a one-day match).
    public let count: Int
    /// Deliveries per day (every delivery when the match has one day).
    public let deliveriesPerDay: Int

    /// The days of `match`: its dates when it is a multi-day match (Test, MDM); one day otherwise, even when it
    /// has several dates (a limited-overs match with a reserve day).
    public init(match: CricsheetMatch) {
        let multiDay = ["Test", "MDM"].contains(match.info.matchType)
        self.init(dates: multiDay ? match.info.dates.count : 1, totalDeliveries: match.totalDeliveries)
    }

    public init(dates: Int, totalDeliveries: Int) {
        let total = max(1, totalDeliveries)
        let days = min(max(1, dates), total)
        count = days
        deliveriesPerDay = days > 1 ? (total + days - 1) / days : Int.max
    }

    /// The day (0-based) of delivery `matchIndex` (0-based across the match).
    public func day(ofDelivery matchIndex: Int) -> Int {
        min(count - 1, max(0, matchIndex) / deliveriesPerDay)
    }

    /// The day of play (1-based) in which `deliveries` deliveries have been bowled: the day of the last one.
    public func dayNumber(afterDeliveries deliveries: Int) -> Int {
        day(ofDelivery: max(0, deliveries - 1)) + 1
    }

    /// The break that follows delivery number `deliveries` (1-based), if any: stumps after a day's
    /// last delivery (not on the last day), lunch after a third of the day, tea after two thirds.
    func breakAfter(deliveries: Int) -> ReplayPosition.Phase? {
        guard count > 1, deliveries > 0 else { return nil }
        let day = day(ofDelivery: deliveries - 1)
        let intoDay = deliveries - day * deliveriesPerDay
        if intoDay == deliveriesPerDay, day < count - 1 { return .stumps }
        let third = deliveriesPerDay / 3
        guard third > 0 else { return nil }
        if intoDay == third { return .lunch }
        if intoDay == 2 * third { return .tea }
        return nil
    }
}
