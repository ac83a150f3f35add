import Contracts
import Cricket

/// The result of an ended match as broadcasters word it, composed from the balls and the feed's outcome fields
/// (`winner_team_id`, `status`, `draw_noresult`, the D/L data), never copied from the feed's `note`: the note's
/// wording varies ("won the Super Over" for a super over that was itself tied) and may contradict the balls.
///
/// Every wording and the facts that choose it are in docs/FORMATS.md ("Result lines"). Where the balls decide
/// the match on their own (no revised target, every innings needed is over), they name the winner; a feed winner
/// that disagrees is a `FeedContradiction` and the balls' winner is shown. What the balls cannot know (a
/// bowl-out, an award, a concession, a forfeit, a D/L par) comes from the feed.
struct ResultLine {
    let analysis: MatchAnalysis
    let teams: TeamScores

    /// The line and, when the feed's outcome fields disagree with the balls, the contradiction.
    struct Verdict: Equatable {
        var line: String
        var contradiction: FeedContradiction?
    }

    func verdict() -> Verdict {
        let fixture = analysis.fixture
        let note = (fixture.note ?? "").lowercased()
        let drawNoResult = Self.text(fixture.drawNoresult).lowercased()
        switch fixture.status {
        case .cancelled: return Verdict(line: "Match cancelled")
        case .abandoned where fixture.winnerTeamId == nil:
            if analysis.balls.isEmpty { return Verdict(line: "Match abandoned without a ball bowled") }
            return Verdict(line: analysis.format.scheduledOvers == nil ? "Match drawn" : "No result")
        default: break
        }
        if drawNoResult.contains("no result") || note.hasPrefix("no result") { return Verdict(line: "No result") }
        if let awarded = Self.award(note), let winner = fixture.winnerTeamId {
            return Verdict(line: "\(teams.name(winner)) won (\(awarded))")
        }
        let decided = decidedByBalls()
        var winner = fixture.winnerTeamId
        var contradiction: FeedContradiction?
        if let decided, let claimed = winner, decided.winner != claimed {
            contradiction = .winnerContradictsBalls(claimed: claimed, balls: decided.winner)
            winner = decided.winner
        } else if winner == nil, let decided {
            winner = decided.winner
        }
        if let tie = tieDecider(winner: winner) { return Verdict(line: tie, contradiction: contradiction) }
        guard let winner else {
            if analysis.format.scheduledOvers == nil || drawNoResult.contains("draw") || note.contains("drawn") {
                return Verdict(line: isTiedTest() ? "Match tied" : "Match drawn", contradiction: contradiction)
            }
            if mainInningsLevel() == true { return Verdict(line: "Match tied" + methodSuffix(), contradiction: contradiction) }
            return Verdict(line: "No result", contradiction: contradiction)
        }
        return Verdict(line: "\(teams.name(winner)) won\(margin(winner: winner))\(methodSuffix())", contradiction: contradiction)
    }

    // MARK: - Who won, by what

    /// The winner the balls alone give, when they decide the match: limited overs without a revised target, both
    /// main innings over, unequal totals; or a multi-innings match whose last innings is over (a chase reached or
    /// a side out twice behind).
    func decidedByBalls() -> (winner: Int, byRuns: Bool)? {
        let format = analysis.format
        if format.scheduledOvers != nil {
            guard analysis.revisedAllocation(2) == nil, analysis.fixture.localteamDlData?.overs ?? 0 <= 0,
                  analysis.fixture.visitorteamDlData?.overs ?? 0 <= 0,
                  let first = analysis.ledger(1), let second = analysis.ledger(2), playedOut(2) else { return nil }
            let a = analysis.totals(1).runs, b = analysis.totals(2).runs
            guard a != b else { return nil }
            return a > b ? (first.teamId, true) : (second.teamId, false)
        }
        let aggregates = aggregateRuns()
        guard let last = analysis.current, aggregates.count == 2 else { return nil }
        let batting = last.teamId
        guard let other = aggregates.keys.first(where: { $0 != batting }), let own = aggregates[batting],
              let theirs = aggregates[other] else { return nil }
        if own > theirs, last.number == 4 { return (batting, false) }
        // All out in its second innings (the third or fourth of the match), behind: the other side won by runs or
        // by an innings.
        if last.number >= 3, analysis.isAllOut(last.number), own < theirs { return (other, true) }
        return nil
    }

    /// True when innings `number` ended on the field: all out, its balls bowled, or its target reached (not
    /// stopped by the weather or a decision).
    func playedOut(_ number: Int) -> Bool {
        let score = analysis.totals(number)
        if score.wickets >= analysis.format.allOutWickets(number) { return true }
        if let balls = analysis.maxBalls(number), score.legalBalls >= balls { return true }
        if let target = analysis.target(for: number), score.runs >= target.runs { return true }
        return false
    }

    /// " by 7 wickets", " by 45 runs", " by an innings and 12 runs" (empty when the margin is not known).
    func margin(winner: Int) -> String {
        let format = analysis.format
        if format.scheduledOvers != nil {
            guard let first = analysis.ledger(1) else { return "" }
            if first.teamId == winner {
                let needed = (analysis.target(for: 2)?.runs ?? analysis.totals(1).runs + 1) - 1
                let runs = needed - analysis.totals(2).runs
                return runs > 0 ? " by \(Self.plural(runs, "run"))" : ""
            }
            guard analysis.ledger(2)?.teamId == winner else { return "" }
            // A chase stopped by the weather ahead of its D/L par is won "by N runs" (runs ahead of par), which only
            // the feed knows; the balls cannot tell it from a chase that reached a revised target.
            if let target = analysis.target(for: 2), target.revised || analysis.totals(2).runs < target.runs {
                if let margin = Self.noteMargin(analysis.fixture.note) { return " \(margin)" }
                guard analysis.totals(2).runs >= target.runs else { return "" }
            }
            let left = format.allOutWickets(2) - analysis.totals(2).wickets
            return left > 0 ? " by \(Self.plural(left, "wicket"))" : ""
        }
        let aggregates = aggregateRuns()
        guard let own = aggregates[winner], let theirs = aggregates.first(where: { $0.key != winner })?.value else { return "" }
        let winnerInnings = analysis.innings.filter { $0.teamId == winner && !analysis.format.isSuperOver($0.number) }
        guard let last = analysis.current else { return "" }
        if last.teamId == winner, own > theirs {
            let left = format.allOutWickets(last.number) - analysis.totals(last.number).wickets
            return left > 0 ? " by \(Self.plural(left, "wicket"))" : ""
        }
        let runs = own - theirs
        guard runs > 0 else { return "" }
        if winnerInnings.count == 1, analysis.innings.count == 3 { return " by an innings and \(Self.plural(runs, "run"))" }
        return " by \(Self.plural(runs, "run"))"
    }

    /// " (DLS method)" when a revised target decided (or levelled) the chase.
    func methodSuffix() -> String {
        guard analysis.format.scheduledOvers != nil, analysis.target(for: 2)?.revised == true else { return "" }
        return " (DLS method)"
    }

    // MARK: - Ties

    /// "Match tied (IND won the Super Over)", "… won the 2nd Super Over", "… won on boundary count",
    /// "… won the bowl-out"; nil when the main innings are not level or nobody won the tie.
    func tieDecider(winner: Int?) -> String? {
        guard analysis.format.scheduledOvers != nil, mainInningsLevel() == true, let winner else { return nil }
        let name = teams.name(winner)
        let superOvers = analysis.innings.filter { analysis.format.isSuperOver($0.number) }
        // Level with no super over bowled: the tie went to a bowl-out (the feed has no balls for one).
        guard let lastNumber = superOvers.map(\.number).max() else { return "Match tied (\(name) won the bowl-out)" }
        let pairFirst = lastNumber - (lastNumber - 3) % 2
        let index = analysis.format.superOverIndex(pairFirst) ?? 1
        let label = index == 1 ? "the Super Over" : "the \(Self.ordinal(index)) Super Over"
        if analysis.totals(pairFirst).runs == analysis.totals(pairFirst + 1).runs, analysis.ledger(pairFirst + 1) != nil {
            return "Match tied (\(name) won on boundary count)"
        }
        return "Match tied (\(name) won \(label))"
    }

    /// True when both main innings are over with equal totals (nil when not both played).
    func mainInningsLevel() -> Bool? {
        guard analysis.ledger(1) != nil, analysis.ledger(2) != nil, analysis.isComplete(2) else { return nil }
        if let target = analysis.target(for: 2), target.revised { return analysis.totals(2).runs == target.runs - 1 }
        return analysis.totals(1).runs == analysis.totals(2).runs
    }

    /// A multi-innings match whose last innings ended all out with the aggregates level.
    func isTiedTest() -> Bool {
        guard let last = analysis.current, last.number == 4, analysis.isAllOut(4) else { return false }
        let aggregates = aggregateRuns()
        return aggregates.count == 2 && Set(aggregates.values).count == 1
    }

    /// Runs per batting team over the main innings.
    func aggregateRuns() -> [Int: Int] {
        var runs: [Int: Int] = [:]
        for innings in analysis.innings where !analysis.format.isSuperOver(innings.number) {
            runs[innings.teamId, default: 0] += analysis.totals(innings.number).runs
        }
        return runs
    }

    /// "awarded", "conceded", "forfeited" when the feed's note says the match was decided so.
    static func award(_ note: String) -> String? {
        if note.contains("awarded") { return "awarded" }
        if note.contains("conceded") { return "conceded" }
        if note.contains("forfeit") { return "forfeited" }
        return nil
    }

    /// "by 28 runs" / "by 3 wickets" as the feed's note words the margin; nil when it does not.
    static func noteMargin(_ note: String?) -> String? {
        let words = (note ?? "").split(separator: " ")
        guard let by = words.firstIndex(of: "by"), by + 2 < words.count, let count = Int(words[by + 1]), count > 0 else { return nil }
        let unit = String(words[by + 2].lowercased().filter(\.isLetter))
        guard ["run", "runs", "wicket", "wickets"].contains(unit) else { return nil }
        return "by \(plural(count, unit.hasPrefix("run") ? "run" : "wicket"))"
    }

    static func text(_ value: JSONValue?) -> String {
        if case .string(let text)? = value { return text }
        return ""
    }

    static func plural(_ count: Int, _ unit: String) -> String { count == 1 ? "1 \(unit)" : "\(count) \(unit)s" }

    /// "2nd", "3rd", "4th", …
    static func ordinal(_ n: Int) -> String {
        let suffix = (11...13).contains(n % 100) ? "th" : [1: "st", 2: "nd", 3: "rd"][n % 10] ?? "th"
        return "\(n)\(suffix)"
    }
}

/// A feed's outcome or innings fields that disagree with its own balls: counted, logged, and not shown.
public enum FeedContradiction: Equatable, Sendable, CustomStringConvertible {
    /// `winner_team_id` names `claimed`, the balls decide for `balls`.
    case winnerContradictsBalls(claimed: Int, balls: Int)
    /// A `runs` row of innings `inning` claims `wickets` wickets, more than the innings can lose.
    case inningsWicketsImpossible(inning: Int, wickets: Int)
    /// A `runs` row of innings `inning` names batting team `row`, the balls team `balls`.
    case inningsTeamContradictsBalls(inning: Int, row: Int, balls: Int)

    /// Every kind, for metrics exported at 0.
    public static let kinds = ["winner_contradicts_balls", "innings_wickets_impossible", "innings_team_contradicts_balls"]

    /// A metric label.
    public var kind: String {
        switch self {
        case .winnerContradictsBalls: "winner_contradicts_balls"
        case .inningsWicketsImpossible: "innings_wickets_impossible"
        case .inningsTeamContradictsBalls: "innings_team_contradicts_balls"
        }
    }

    public var description: String {
        switch self {
        case .winnerContradictsBalls(let claimed, let balls):
            "winner_team_id \(claimed) contradicts the balls, which give the match to team \(balls)"
        case .inningsWicketsImpossible(let inning, let wickets):
            "the runs row of innings \(inning) claims \(wickets) wickets"
        case .inningsTeamContradictsBalls(let inning, let row, let balls):
            "the runs row of innings \(inning) names team \(row), its balls team \(balls)"
        }
    }
}
