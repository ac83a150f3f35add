import Cricket

/// Limited overs (T20, ODI, …) or unlimited (Tests, first-class), as far as a fixture tells.
public enum MatchFormat: Sendable, Equatable {
    case limited(overs: Int)
    case unlimited

    /// Reads `type` and `total_overs_played`: Tests and 4/5-day games are unlimited.
    public init(fixture: SportMonksFixture) {
        let type = (fixture.type ?? "").lowercased()
        if type.contains("test") || type.contains("day") || type.contains("first") {
            self = .unlimited
        } else if let overs = fixture.totalOversPlayed, overs > 0 {
            self = .limited(overs: overs)
        } else if type.contains("odi") || type.contains("list") || type.contains("50") {
            self = .limited(overs: 50)
        } else {
            self = .limited(overs: 20)
        }
    }

    /// Scheduled overs per side; nil for unlimited matches.
    public var scheduledOvers: Int? {
        if case .limited(let overs) = self { return overs }
        return nil
    }

    /// Main innings per match: 2 (limited) or 4 (unlimited). Later innings of a limited match are super overs.
    public var mainInnings: Int { scheduledOvers == nil ? 4 : 2 }

    /// True when innings `number` is a super over.
    public func isSuperOver(_ number: Int) -> Bool { scheduledOvers != nil && number > 2 }

    /// 1 for innings 3 and 4, 2 for 5 and 6, …; nil for main innings.
    public func superOverIndex(_ number: Int) -> Int? {
        isSuperOver(number) ? (number - 3) / 2 + 1 : nil
    }

    /// Wickets that end an innings: 10, or 2 in a super over.
    public func allOutWickets(_ number: Int) -> Int { isSuperOver(number) ? 2 : 10 }

    /// True when innings `number` chases a target: the last main innings or the second of a super-over pair.
    public func isChase(_ number: Int) -> Bool {
        if isSuperOver(number) { return (number - 3) % 2 == 1 }
        return number == mainInnings
    }
}
