import Contracts
import Cricket

/// Everything the detector remembers about one match between snapshots (stored in `active_matches`).
///
/// The numbers shown to users are always rebuilt from the snapshot itself; this state only remembers what
/// was already announced (watermark, milestones, phase keys, targets), the ordering position, the cooldowns,
/// the Tier0 totals and a short window of balls to notice corrections.
public struct DetectorState: Codable, Sendable, Equatable {
    /// A delivery as last seen, to notice corrections ("runs changed after the fact").
    public struct BallMemo: Codable, Sendable, Equatable {
        public var id: Int
        public var scoreboard: String
        public var scoreId: Int
        public var teamRuns: Int
        public var wicket: Bool

        public init(_ ball: SportMonksBall) {
            id = ball.id
            scoreboard = ball.scoreboard
            scoreId = ball.score.id
            teamRuns = ball.score.teamRuns
            wicket = ball.score.isWicket
        }
    }

    /// How many balls `lastBalls` keeps.
    public static let ballWindow = 30

    public var matchId: String
    /// Sequence number of the last emitted event (0 before the first).
    public var seq: Int64 = 0
    /// `polledAt` of the newest accepted snapshot; nil before the first.
    public var lastPolledAt: Int64?
    /// Highest ball id processed: deliveries at or below it never produce ball events again.
    public var lastBallId: Int = 0
    /// Raw status string of the newest accepted snapshot.
    public var lastStatus: String?
    public var phase: MatchPhase?
    /// Tier0: the last known total of every innings, by scoreboard ("S1").
    public var previousScores: [String: InningsScore] = [:]
    /// Tier1: the last `ballWindow` deliveries, oldest first.
    public var lastBalls: [BallMemo] = []
    /// Cooldowns: alert kind (`KeyEventKind` raw value) → Unix epoch milliseconds until which it stays silent.
    public var cooldowns: [String: Int64] = [:]
    /// Milestones already announced: "fifty:S1:123", "hundred:…", "fiveFor:…", "hatTrick:…".
    public var milestones: Set<String> = []
    /// Match-level events already announced: "matchStart", "inningsEnd:S1", "superOver:1", "stumps:2", "result";
    /// and the days of play seen, "day:2" ("day:0": before the first ball), and their intervals, "interval:2:Lunch"
    /// (they count the day's sessions).
    public var phaseKeys: Set<String> = []
    /// Targets announced, by chasing scoreboard → `ChaseTarget.signature` (to notice D/L revisions).
    public var announcedTargets: [String: String] = [:]
    /// The display state of the newest accepted snapshot.
    public var displayState: UnifiedDisplayState?

    public init(matchId: String) {
        self.matchId = matchId
    }

    /// True before the first accepted snapshot.
    public var isNew: Bool { lastPolledAt == nil }

    /// Remembers the last `ballWindow` balls of `balls` (already in delivery order).
    mutating func remember(_ balls: [SportMonksBall]) {
        lastBalls = balls.suffix(Self.ballWindow).map(BallMemo.init)
    }

    /// Ids of remembered balls whose outcome differs in `balls` (a correction).
    func corrections(in balls: [SportMonksBall]) -> [Int] {
        guard !lastBalls.isEmpty else { return [] }
        let byId = Dictionary(lastBalls.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let first = lastBalls[0].id
        return balls.filter { $0.id >= first }.compactMap { ball in
            guard let memo = byId[ball.id] else { return nil }
            return memo == BallMemo(ball) ? nil : ball.id
        }
    }
}
