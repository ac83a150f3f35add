/// What a chasing innings must score: runs, and the legal balls available when overs are limited.
public struct ChaseTarget: Sendable, Equatable, Codable {
    /// The innings that chases ("S2").
    public var scoreboard: String
    public var runs: Int
    /// Legal balls available; nil when the overs are not limited (a Test's fourth innings).
    public var maxBalls: Int?
    /// True when the target or the overs were revised (D/L, DLS, rain).
    public var revised: Bool

    public init(scoreboard: String, runs: Int, maxBalls: Int?, revised: Bool) {
        self.scoreboard = scoreboard
        self.runs = runs
        self.maxBalls = maxBalls
        self.revised = revised
    }

    /// Stable text identity of the target, used to notice revisions: "302/240".
    public var signature: String { "\(runs)/\(maxBalls.map(String.init) ?? "-")" }
}
