import Cricket

/// A batter's running line in one innings, built from the balls.
public struct BatterTally: Sendable, Equatable {
    public let playerId: Int
    /// Order of arrival at the crease, 1-based.
    public let order: Int
    public var runs = 0
    /// Balls faced (wides excluded, no-balls included).
    public var balls = 0
    public var fours = 0
    public var sixes = 0
    public var isOut = false
}

/// A bowler's running figures in one innings, built from the balls.
public struct BowlerTally: Sendable, Equatable {
    public let playerId: Int
    public let order: Int
    public var legalBalls = 0
    /// Runs conceded: bat runs, wides and no-ball runs.
    public var runs = 0
    /// Wickets credited to the bowler.
    public var wickets = 0
}

/// One innings rebuilt ball by ball: totals, batters, bowlers and its deliveries (indexes into the sorted balls).
public struct InningsLedger: Sendable {
    /// "S1", "S2", …
    public let scoreboard: String
    /// The n of "Sn".
    public let number: Int
    /// The batting team.
    public var teamId: Int
    public var totals = InningsScore()
    public var batters: [Int: BatterTally] = [:]
    public var bowlers: [Int: BowlerTally] = [:]
    /// Indexes into `MatchAnalysis.balls`, in delivery order.
    public var ballIndexes: [Int] = []

    public init(scoreboard: String, number: Int, teamId: Int) {
        self.scoreboard = scoreboard
        self.number = number
        self.teamId = teamId
    }

    /// The innings number of a scoreboard label: "S3" → 3 (0 when the label is not "S<n>").
    public static func number(of scoreboard: String) -> Int {
        Int(scoreboard.dropFirst()) ?? 0
    }

    /// Batters in order of arrival.
    public var battersInOrder: [BatterTally] { batters.values.sorted { $0.order < $1.order } }

    mutating func batter(_ id: Int) -> BatterTally {
        if let found = batters[id] { return found }
        let tally = BatterTally(playerId: id, order: batters.count + 1)
        batters[id] = tally
        return tally
    }

    mutating func bowler(_ id: Int) -> BowlerTally {
        if let found = bowlers[id] { return found }
        let tally = BowlerTally(playerId: id, order: bowlers.count + 1)
        bowlers[id] = tally
        return tally
    }

    /// The batter given out on `ball`: `batsmanout_id` when it is one of the two batters, else the striker.
    static func dismissedBatter(_ ball: SportMonksBall) -> Int {
        guard let out = ball.batsmanoutId else { return ball.batsmanId }
        let atCrease = out == ball.batsmanId || out == ball.batsmanOneOnCreezeId || out == ball.batsmanTwoOnCreezeId
        return atCrease ? out : ball.batsmanId
    }

    /// The batters given out on `ball` besides `dismissedBatter`, when it carries `count` team wickets: the ball
    /// names one, the batting card (`card`, this fixture's `batting` rows) the rest — the rows of this innings whose
    /// fall of wicket is this ball at this score, in batting order. Fewer when the card does not show them yet.
    func otherDismissed(_ ball: SportMonksBall, count: Int, runsAfter: Int, card: [SportMonksBatting]) -> [Int] {
        guard count > 1 else { return [] }
        let first = Self.dismissedBatter(ball)
        return card.filter { row in
            row.scoreboard == scoreboard && row.playerId != first && row.fowBalls == ball.ball && row.fowScore == runsAfter
                && batters[row.playerId]?.isOut != true
        }.sorted { ($0.sort ?? 0) < ($1.sort ?? 0) }.prefix(count - 1).map(\.playerId)
    }

    /// Adds one delivery and returns the lines it changed, before and after. `card` (the fixture's batting rows)
    /// names the batters of a delivery with several dismissals.
    mutating func add(_ ball: SportMonksBall, facts: BallFacts, index: Int, card: [SportMonksBatting] = []) -> BallMoment.Lines {
        ballIndexes.append(index)
        totals.runs += facts.teamRuns
        totals.wickets += facts.teamWickets
        if facts.isLegal { totals.legalBalls += 1 }

        // Make sure both batters exist in arrival order (striker first when both are new).
        _ = batter(ball.batsmanId)
        if let one = ball.batsmanOneOnCreezeId, one != ball.batsmanId {
            _ = batter(one)
        } else if let two = ball.batsmanTwoOnCreezeId, two != ball.batsmanId {
            _ = batter(two)
        }
        let strikerBefore = batter(ball.batsmanId)
        var striker = strikerBefore
        striker.runs += facts.batRuns
        if facts.facedByBatter { striker.balls += 1 }
        if facts.isFour { striker.fours += 1 }
        if facts.isSix { striker.sixes += 1 }
        batters[striker.playerId] = striker

        var dismissals: [BallMoment.Dismissal] = []
        if facts.isWicket {
            let kinds = facts.teamDismissals
            let others = otherDismissed(ball, count: kinds.count, runsAfter: totals.runs, card: card)
            let ids: [Int?] = [Self.dismissedBatter(ball)] + others + Array(repeating: nil, count: max(0, kinds.count - 1 - others.count))
            for (kind, id) in zip(kinds, ids) {
                guard let id else {
                    dismissals.append(.init(kind: kind, batter: nil))
                    continue
                }
                var out = batter(id)
                out.isOut = true
                batters[out.playerId] = out
                dismissals.append(.init(kind: kind, batter: out))
            }
        }

        let bowlerBefore = bowler(ball.bowlerId)
        var bowling = bowlerBefore
        bowling.runs += facts.bowlerRuns
        if facts.isLegal { bowling.legalBalls += 1 }
        bowling.wickets += facts.bowlerWickets
        bowlers[bowling.playerId] = bowling

        return BallMoment.Lines(strikerBefore: strikerBefore, strikerAfter: batters[striker.playerId] ?? striker,
                                dismissals: dismissals, bowlerBefore: bowlerBefore, bowlerAfter: bowling)
    }
}

/// One delivery as the detector saw it: the ball, its facts, the lines it changed and the bowler's streak.
public struct BallMoment: Sendable {
    /// One batter given out on the delivery: how, and the line after it (nil when the feed does not say who).
    public struct Dismissal: Sendable {
        public let kind: DismissalKind
        public let batter: BatterTally?
    }

    /// Batter and bowler lines around the delivery.
    public struct Lines: Sendable {
        public let strikerBefore: BatterTally
        public let strikerAfter: BatterTally
        /// The team wickets of the delivery, in order (usually none or one).
        public let dismissals: [Dismissal]
        /// The (first) batter given out, with the line after the delivery.
        public var dismissed: BatterTally? { dismissals.first?.batter }
        public let bowlerBefore: BowlerTally
        public let bowlerAfter: BowlerTally
    }

    /// Index into `MatchAnalysis.balls`.
    public let index: Int
    public let ball: SportMonksBall
    public let facts: BallFacts
    public let lines: Lines
    /// Consecutive deliveries of this bowler, in this match, each taking a wicket credited to him (this one included).
    public let bowlerStreak: Int
    /// Team total of the innings after the delivery.
    public let totalsAfter: InningsScore
}
