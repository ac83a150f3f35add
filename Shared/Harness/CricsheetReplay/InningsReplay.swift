/// The state of one innings after replaying some deliveries: totals, extras, batting and bowling lines,
/// and every delivery bowled with its SportMonks ball number.
public struct InningsReplay: Sendable, Hashable {
    /// A dismissal as the batting card shows it.
    public struct Dismissal: Sendable, Hashable {
        public var kind: String
        /// The bowler, only when the dismissal is credited to the bowler.
        public var bowler: String?
        /// The catcher / stumper / run-out fielder (the bowler for "caught and bowled").
        public var fielder: String?
        /// Team score when the wicket fell (after the runs of that delivery).
        public var fowScore: Int
        /// SportMonks ball number of the delivery, e.g. 18.6.
        public var fowBall: Double
    }

    /// One batter's line.
    public struct BatterLine: Sendable, Hashable {
        public var name: String
        /// Batting position (order of arrival at the crease), 1-based.
        public var sort: Int
        public var runs = 0
        /// Balls faced: every delivery except wides (no-balls count).
        public var balls = 0
        public var fours = 0
        public var sixes = 0
        /// Set when out (team wicket), including "retired out".
        public var dismissal: Dismissal?
        /// "retired hurt" / "retired not out" / "absent hurt": not out and not a wicket.
        public var retirement: String?
    }

    /// One bowler's line.
    public struct BowlerLine: Sendable, Hashable {
        public var name: String
        /// Order of first delivery, 1-based.
        public var sort: Int
        public var legalBalls = 0
        /// Runs conceded: bat runs + wides + no-balls (byes, leg byes and penalties are not charged).
        public var runs = 0
        /// Wickets credited to the bowler (no run outs, retirements, obstructing the field).
        public var wickets = 0
        public var wideRuns = 0
        public var noballs = 0
        public var maidens = 0
    }

    /// One delivery as bowled, with the state right after it.
    public struct Delivery: Sendable, Hashable {
        /// 0-based index across the whole match.
        public var matchIndex: Int
        public var over: Int
        /// Number of the legal ball this delivery is or precedes (1…6): extras share the next legal ball's number.
        public var ballInOver: Int
        public var delivery: CricsheetDelivery
        public var totalAfter: Int
        public var wicketsAfter: Int

        /// SportMonks ball number, e.g. 3.2.
        public var ballNumber: Double { SportMonksNumber.over(over, ball: ballInOver) }
    }

    /// Index into `CricsheetMatch.innings`.
    public var matchInningsIndex: Int
    /// 1-based innings number = the n of scoreboard "Sn" (super overs continue the numbering).
    public var number: Int
    public var team: String
    public var superOver: Bool
    public var declared: Bool
    /// All of this innings' deliveries have been replayed.
    public var isComplete: Bool
    public var target: CricsheetInnings.Target?
    public var runs = 0
    /// Team wickets (retired hurt / retired not out excluded).
    public var wickets = 0
    public var legalBalls = 0
    public var wideRuns = 0
    public var noballRuns = 0
    public var noballBalls = 0
    public var byes = 0
    public var legbyes = 0
    public var penalty = 0
    public var batters: [BatterLine] = []
    public var bowlers: [BowlerLine] = []
    public var deliveries: [Delivery] = []

    /// "S1", "S2", …
    public var scoreboard: String { "S\(number)" }
}

/// Decimal over numbers without float accumulation error.
enum SportMonksNumber {
    static func over(_ over: Int, ball: Int) -> Double {
        ball == 0 ? Double(over) : Double("\(over).\(ball)") ?? Double(over)
    }

    static func overs(legalBalls: Int, ballsPerOver: Int) -> Double {
        over(legalBalls / ballsPerOver, ball: legalBalls % ballsPerOver)
    }
}
