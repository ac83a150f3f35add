import Contracts

/// The chase as text: target, "need 45 off 30", required rate.
struct ChaseView {
    let analysis: MatchAnalysis
    let teams: TeamScores

    var target: ChaseTarget? { analysis.activeTarget }

    /// Runs still needed and balls left (nil balls when unlimited); nil when there is no chase.
    func remaining() -> (runs: Int, balls: Int?)? {
        guard let target else { return nil }
        let number = InningsLedger.number(of: target.scoreboard)
        if analysis.ledger(number) != nil, analysis.isComplete(number) { return nil }
        if analysis.fixture.status.phase == .ended { return nil }
        let totals = analysis.ledger(number) == nil ? .init() : analysis.totals(number)
        let balls = target.maxBalls.map { $0 - totals.legalBalls }
        return (target.runs - totals.runs, balls)
    }

    /// "Target 181", "Target 302 (40 ov, DLS)", "Target 16 (Super Over)".
    func targetText() -> String? {
        guard let target else { return nil }
        let number = InningsLedger.number(of: target.scoreboard)
        let format = analysis.format
        let revised = target.revised ? target.maxBalls : nil
        let overs = format.countsBalls ? nil : revised.map { OversFormatter.allocation(legalBalls: $0) }
        return ScoreFormatter.target(runs: target.runs, revisedOvers: overs, revisedBalls: format.countsBalls ? revised : nil,
                                     superOver: format.isSuperOver(number))
    }

    /// "need 45 off 30", "need 42 from 30 balls" ("Need …" when `capitalised`); nil when no chase or nothing left to get.
    func equation(capitalised: Bool = false) -> String? {
        guard let (runs, balls) = remaining(), let text = teams.equation(runsNeeded: runs, ballsLeft: balls) else { return nil }
        return capitalised ? ScoreFormatter.capitalised(text) : text
    }

    /// "IND need 45 off 30".
    func teamEquation() -> String? {
        guard let target, let text = equation() else { return nil }
        let number = InningsLedger.number(of: target.scoreboard)
        return "\(teams.abbr(analysis.battingTeam(number))) \(text)"
    }

    /// "9.00" (runs per over; per five-ball set in The Hundred); nil when there is no ball limit or nothing left.
    func requiredRate() -> String? {
        guard let (runs, balls) = remaining(), let balls else { return nil }
        return RateFormatter.requiredRate(runsNeeded: runs, ballsLeft: balls, ballsPerOver: analysis.format.ballsPerOver)
    }
}
