import Cricket

/// The shape of a match as far as a fixture tells: limited overs (T20, T10, ODI, The Hundred, …) or unlimited
/// (Tests, first-class), and how many legal balls make one of its overs.
public struct MatchFormat: Sendable, Equatable {
    /// Scheduled overs per side (20 in a T20, 10 in a T10, 20 five-ball sets in The Hundred); nil for unlimited matches.
    public let scheduledOvers: Int?
    /// Legal balls in an over: 6, or 5 in The Hundred.
    public let ballsPerOver: Int

    /// A limited-overs format of `overs` overs of `ballsPerOver` balls.
    public static func limited(overs: Int, ballsPerOver: Int = 6) -> MatchFormat {
        MatchFormat(scheduledOvers: overs, ballsPerOver: ballsPerOver)
    }

    /// Tests and other multi-day matches.
    public static let unlimited = MatchFormat(scheduledOvers: nil, ballsPerOver: 6)

    init(scheduledOvers: Int?, ballsPerOver: Int) {
        self.scheduledOvers = scheduledOvers
        self.ballsPerOver = max(1, ballsPerOver)
    }

    /// Reads `type`, `total_overs_played` and the league: Tests and 4/5-day games are unlimited; The Hundred is
    /// 20 sets of 5 balls; a T10 without `total_overs_played` is 10 overs.
    public init(fixture: SportMonksFixture) {
        let type = (fixture.type ?? "").lowercased()
        let ballsPerOver = fixture.ballsPerOver
        if type.contains("test") || type.contains("day") || type.contains("first") {
            self = .unlimited
        } else if let overs = fixture.totalOversPlayed, overs > 0 {
            self = .limited(overs: overs, ballsPerOver: ballsPerOver)
        } else if fixture.isHundred {
            self = .limited(overs: 100 / ballsPerOver, ballsPerOver: ballsPerOver)
        } else if type.contains("t10") {
            self = .limited(overs: 10)
        } else if type.contains("odi") || type.contains("list") || type.contains("50") {
            self = .limited(overs: 50)
        } else {
            self = .limited(overs: 20)
        }
    }

    /// True when progress is shown in balls rather than overs: any over that is not six balls (The Hundred).
    public var countsBalls: Bool { ballsPerOver != 6 }

    /// Legal balls a side may face in a main innings; nil for unlimited matches.
    public var scheduledBalls: Int? { scheduledOvers.map { $0 * ballsPerOver } }

    /// Legal balls between the batters' changes of ends: an over, or ten balls in The Hundred (a bowler bowls five or
    /// ten in a row from one end, and the ends change every ten).
    public var ballsPerEnd: Int { countsBalls ? 10 : ballsPerOver }

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
