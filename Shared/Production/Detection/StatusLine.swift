import Contracts
import Cricket

/// The one-line state of play and the result line.
struct StatusLine {
    let analysis: MatchAnalysis
    let teams: TeamScores
    /// The session of the day in play (1 before lunch, 2 after it, 3 after tea), when known.
    var session: Int? = nil

    /// "IND need 45 off 30", "Innings break · PAK need 302 off 240", "ENG lead by 45", the result, …
    func text(phase: MatchPhase) -> String {
        let fixture = analysis.fixture
        let chase = ChaseView(analysis: analysis, teams: teams)
        switch phase {
        case .upcoming:
            if case .notStarted = fixture.status { return toss() ?? "Match yet to begin" }
            return PhaseReading.stoppageText(fixture.status)
        case .ended:
            return result()
        case .inningsBreak:
            return [declaration() ?? "Innings break", chase.teamEquation() ?? lead()].compactMap { $0 }.joined(separator: " · ")
        case .interrupted:
            let stoppage = PhaseReading.stoppageText(fixture.status)
            let day: String? = if case .stumps = fixture.status { nil } else { dayLabel() }
            return [stoppage, day, chase.teamEquation() ?? lead()].compactMap { $0 }.joined(separator: " · ")
        case .live:
            guard let current = analysis.current else { return toss() ?? "Live" }
            var parts: [String] = []
            if let day = dayLabel() { parts.append(session.map { "\(day) · Session \($0)" } ?? day) }
            if analysis.isFollowOn(current.number) { parts.append("\(teams.abbr(current.teamId)) following on") }
            if let index = analysis.format.superOverIndex(current.number) {
                parts.append(ScoreFormatter.superOverLabel(index))
            }
            if let equation = chase.teamEquation() {
                parts.append(equation)
            } else if let target = chase.target, analysis.totals(InningsLedger.number(of: target.scoreboard)).runs >= target.runs {
                parts.append("Target reached")
            } else if let target = chase.target, analysis.isComplete(InningsLedger.number(of: target.scoreboard)) {
                parts.append("Innings over")
            } else if let lead = lead() {
                parts.append(lead)
            } else if let toss = toss() {
                parts.append(toss)
            } else {
                parts.append("\(teams.abbr(current.teamId)) batting")
            }
            return parts.joined(separator: " · ")
        }
    }

    /// In a multi-day match: "Day 3", counted in whole days from the scheduled start to the latest delivery
    /// (SportMonks' `starting_at` and the balls' `updated_at`, both UTC), with 6 hours' grace so that a day
    /// started early to make up lost time counts as the next day, and a day that starts at 23:30 UTC stays one
    /// day until the next one starts. Nil in limited-overs matches and before the first ball.
    func dayLabel() -> String? {
        dayNumber().map { "Day \($0)" }
    }

    /// The day of play of `dayLabel()` as a number.
    func dayNumber() -> Int? {
        guard analysis.format.scheduledOvers == nil, let start = analysis.fixture.startingAt.flatMap(SportMonksTimestamp.seconds),
              let latest = analysis.balls.last?.updatedAt.flatMap(SportMonksTimestamp.seconds), latest >= start else { return nil }
        return Int((latest - start + 6 * 3600) / 86_400) + 1
    }

    /// At the break after a declared innings: "AUS declared".
    func declaration() -> String? {
        guard let current = analysis.current, analysis.isDeclared(current.number) else { return nil }
        return "\(teams.abbr(current.teamId)) declared"
    }

    /// "India won the toss and chose to bat".
    func toss() -> String? {
        let fixture = analysis.fixture
        guard let winner = fixture.tossWonTeamId, let elected = fixture.elected else { return nil }
        let choice = elected.lowercased().hasPrefix("bat") ? "bat" : "bowl"
        return "\(teams.name(winner)) won the toss and chose to \(choice)"
    }

    /// In a multi-innings match after the first innings: "ENG lead by 45", "ENG trail by 45", "Scores level".
    func lead() -> String? {
        guard analysis.format.scheduledOvers == nil, let current = analysis.current, current.number >= 2 else { return nil }
        var own = 0, other = 0
        for innings in analysis.innings {
            if innings.teamId == current.teamId { own += analysis.totals(innings.number).runs }
            else { other += analysis.totals(innings.number).runs }
        }
        let abbr = teams.abbr(current.teamId)
        if own == other { return "Scores level" }
        return own > other ? "\(abbr) lead by \(own - other)" : "\(abbr) trail by \(other - own)"
    }

    /// The result line (`ResultLine`).
    func result() -> String { ResultLine(analysis: analysis, teams: teams).verdict().line }
}
