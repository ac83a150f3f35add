import Contracts
import Cricket

/// Everything the detector reads from one fixture snapshot, rebuilt from scratch every time (so corrected
/// balls simply produce corrected numbers): innings ledgers from the balls, totals, targets, names and, for
/// deliveries newer than `watermark`, the moments the event detector looks at.
public struct MatchAnalysis: Sendable {
    public let fixture: SportMonksFixture
    public let format: MatchFormat
    public let players: PlayerDirectory
    /// The fixture's balls in delivery order (ascending id).
    public let balls: [SportMonksBall]
    /// Innings that have a ball or a `runs` row, by number.
    public let innings: [InningsLedger]
    /// Deliveries with an id above the watermark, in order.
    public let moments: [BallMoment]
    /// `runs` rows that disagree with the balls (each is ignored: the balls are shown).
    public let contradictions: [FeedContradiction]

    /// Analyses `fixture`; deliveries with `id > watermark` become `moments`.
    public init(fixture: SportMonksFixture, watermark: Int) {
        self.fixture = fixture
        format = MatchFormat(fixture: fixture)
        players = PlayerDirectory(fixture: fixture)
        var sorted = fixture.balls ?? []
        if zip(sorted, sorted.dropFirst()).contains(where: { $0.id > $1.id }) { sorted.sort { $0.id < $1.id } }
        balls = sorted

        var ledgers: [Int: InningsLedger] = [:]
        for row in fixture.runs ?? [] where row.inning > 0 {
            ledgers[row.inning] = InningsLedger(scoreboard: row.scoreboard, number: row.inning, teamId: row.teamId)
        }
        var streaks: [Int: Int] = [:]
        var moments: [BallMoment] = []
        // Indexed, not `for ball in`: a ball holds many strings, and copying each one out costs more than the
        // tallying (this loop runs over every ball of every snapshot).
        for index in sorted.indices {
            let number = InningsLedger.number(of: sorted[index].scoreboard)
            let facts = BallFacts(sorted[index].score)
            // Mutated in place through the subscript: copying the ledger out and back would copy its tallies
            // and ball list on every delivery.
            let lines = ledgers[number, default: InningsLedger(scoreboard: sorted[index].scoreboard, number: number,
                                                               teamId: sorted[index].teamId)]
                .add(sorted[index], facts: facts, index: index, card: facts.teamWickets > 1 ? fixture.batting ?? [] : [])
            let bowlerId = sorted[index].bowlerId
            let streak = facts.bowlerWicket ? (streaks[bowlerId] ?? 0) + 1 : 0
            streaks[bowlerId] = streak
            if sorted[index].id > watermark, let totals = ledgers[number]?.totals {
                moments.append(BallMoment(index: index, ball: sorted[index], facts: facts, lines: lines,
                                          bowlerStreak: streak, totalsAfter: totals))
            }
        }
        // An innings with balls is batted by the team of its balls, whatever its `runs` row says.
        var contradictions: [FeedContradiction] = []
        for (number, ledger) in ledgers {
            guard let first = ledger.ballIndexes.first, sorted[first].teamId != ledger.teamId else { continue }
            contradictions.append(.inningsTeamContradictsBalls(inning: number, row: ledger.teamId, balls: sorted[first].teamId))
            ledgers[number]?.teamId = sorted[first].teamId
        }
        innings = ledgers.values.sorted { $0.number < $1.number }
        self.moments = moments
        for row in fixture.runs ?? [] where row.inning > 0 && row.wickets > format.allOutWickets(row.inning) {
            contradictions.append(.inningsWicketsImpossible(inning: row.inning, wickets: row.wickets))
        }
        self.contradictions = contradictions.sorted { $0.description < $1.description }
    }

    // MARK: - Lookups

    /// The innings being played or last played.
    public var current: InningsLedger? { innings.last }

    /// The innings numbered `number`.
    public func ledger(_ number: Int) -> InningsLedger? { innings.first { $0.number == number } }

    /// Highest ball id in the snapshot (0 when there are none).
    public var maxBallId: Int { balls.last?.id ?? 0 }

    /// The innings total: the `runs` row when it is at least as far on as the balls, else the balls' sum.
    public func totals(_ number: Int) -> InningsScore {
        let fromBalls = ledger(number)?.totals ?? InningsScore()
        guard let row = fixture.runs?.first(where: { $0.inning == number }),
              row.wickets <= format.allOutWickets(number), ledger(number).map({ $0.teamId == row.teamId }) ?? true
        else { return fromBalls }
        let fromRow = InningsScore(run: row, ballsPerOver: format.ballsPerOver)
        return fromRow.legalBalls >= fromBalls.legalBalls ? fromRow : fromBalls
    }

    /// The team that is not `teamId` (nil when the fixture names neither).
    public func opponent(of teamId: Int) -> Int? {
        if teamId == fixture.localteamId { return fixture.visitorteamId }
        if teamId == fixture.visitorteamId { return fixture.localteamId }
        return nil
    }

    /// The batting team of innings `number`, known or inferred from the innings before it.
    public func battingTeam(_ number: Int) -> Int? {
        if let ledger = ledger(number) { return ledger.teamId }
        guard number > 1, let previous = battingTeam(number - 1) else { return number == 1 ? nil : nil }
        if format.isSuperOver(number), (number - 3) % 2 == 0 {
            // First innings of a super over: the side that batted second in the tied pair bats first.
            return previous
        }
        return opponent(of: previous)
    }

    // MARK: - Innings state

    /// Legal balls available to innings `number`; nil when the overs are not limited.
    public func maxBalls(_ number: Int) -> Int? {
        guard let balls = format.scheduledBalls else { return nil }
        if format.isSuperOver(number) { return format.ballsPerOver }
        if format.isChase(number), let revised = revisedAllocation(number) { return revised.balls }
        return balls
    }

    /// True when innings `number` is over: a later innings exists, the status says so, all out, overs done,
    /// or the target reached.
    public func isComplete(_ number: Int) -> Bool {
        if innings.contains(where: { $0.number > number }) { return true }
        let isLast = current?.number == number
        if isLast {
            switch fixture.status {
            case .inningsBreak, .finished: return true
            default: break
            }
        }
        let score = totals(number)
        if score.wickets >= format.allOutWickets(number) { return true }
        if let max = maxBalls(number), score.legalBalls >= max { return true }
        if let target = target(for: number), score.runs >= target.runs { return true }
        return false
    }

    /// True when innings `number` ended by a declaration (unlimited matches only).
    public func isDeclared(_ number: Int) -> Bool {
        guard format.scheduledOvers == nil else { return false }
        let score = totals(number)
        guard score.wickets < 10 else { return false }
        if current?.number == number, (fixture.note ?? "").lowercased().contains("declared") { return true }
        return innings.contains { $0.number > number }
    }

    /// True when innings `number` is a follow-on: the third innings of a multi-innings match, batted by the side
    /// that batted second (SportMonks' `follow_on` flag, or the innings' own team when the flag is missing).
    public func isFollowOn(_ number: Int) -> Bool {
        guard format.scheduledOvers == nil, number == 3 else { return false }
        if let second = innings.first(where: { $0.number == 2 }), let third = innings.first(where: { $0.number == 3 }) {
            return second.teamId == third.teamId
        }
        return fixture.followOn == true
    }

    /// True when innings `number` is all out.
    public func isAllOut(_ number: Int) -> Bool {
        !format.isSuperOver(number) && totals(number).wickets >= format.allOutWickets(number)
    }
}
