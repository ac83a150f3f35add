import CricsheetReplay

/// The deliveries of a Cricsheet match after which its batting side shows a given score: how the checker tells which
/// ball a push's content shows, from the match file alone (never from the services).
///
/// The key is the innings in progress's runs and legal balls; every delivery changes one of them, so within an innings
/// it is unique, and across innings (a Test's third innings passing the first's score at the same ball) the checker
/// takes the candidate served last before the push.
public struct ScoreIndex: Sendable {
    /// Runs and legal balls of the innings in progress.
    public struct Score: Sendable, Hashable {
        public var runs: Int
        public var legalBalls: Int
        public init(runs: Int, legalBalls: Int) {
            self.runs = runs
            self.legalBalls = legalBalls
        }
    }

    private var deliveries: [Score: [Int]] = [:]
    /// Deliveries in the whole match.
    public let total: Int

    public init(match: CricsheetMatch) {
        let replay = MatchReplay(match: match)
        for innings in replay.innings {
            var legalBalls = 0
            for delivery in innings.deliveries {
                if delivery.delivery.isLegal { legalBalls += 1 }
                deliveries[Score(runs: delivery.totalAfter, legalBalls: legalBalls), default: []].append(delivery.matchIndex + 1)
            }
        }
        total = match.totalDeliveries
    }

    /// The deliveries bowled (1-based count across the match) at which the batting side showed `score`; empty when none.
    public func deliveries(showing score: Score) -> [Int] { deliveries[score] ?? [] }
}
