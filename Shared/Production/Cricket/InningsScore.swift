/// An innings total: runs, wickets and legal balls, computed from balls or taken from a `runs` row.
public struct InningsScore: Sendable, Hashable, Codable {
    public var runs: Int
    public var wickets: Int
    /// Deliveries that count towards the over (no wides, no no-balls).
    public var legalBalls: Int

    public init(runs: Int = 0, wickets: Int = 0, legalBalls: Int = 0) {
        self.runs = runs; self.wickets = wickets; self.legalBalls = legalBalls
    }

    /// From a `runs` row (its overs number turned back into legal balls, `ballsPerOver` to an over: 5 in The Hundred).
    public init(run: SportMonksRun, ballsPerOver: Int = 6) {
        self.init(runs: run.score, wickets: run.wickets,
                  legalBalls: SportMonksOvers.legalBalls(fromOvers: run.overs, ballsPerOver: ballsPerOver))
    }

    /// SportMonks overs number of `legalBalls` (e.g. 19.4).
    public var overs: Double { SportMonksOvers.overs(fromLegalBalls: legalBalls) }

    /// Adds one delivery: team runs `runs + bye + leg_bye`, its wickets when `is_wicket` (one per dismissal its
    /// name records that counts against the side: "Catch Out + Timed Out" is two), a legal ball when
    /// `ball && noball == 0` and not a wide.
    public mutating func add(_ score: SportMonksScore) {
        runs += score.teamRuns
        wickets += score.teamWickets
        if score.isLegalDelivery { legalBalls += 1 }
    }

    /// The total of one scoreboard's balls (ordered or not; the sum does not depend on order).
    public static func from(balls: [SportMonksBall], scoreboard: String) -> InningsScore {
        var total = InningsScore()
        for ball in balls where ball.scoreboard == scoreboard { total.add(ball.score) }
        return total
    }

    /// Totals of every scoreboard present in `balls`, keyed by "S1", "S2", ….
    public static func byScoreboard(_ balls: [SportMonksBall]) -> [String: InningsScore] {
        var totals: [String: InningsScore] = [:]
        for ball in balls { totals[ball.scoreboard, default: InningsScore()].add(ball.score) }
        return totals
    }
}
