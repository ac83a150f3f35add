import Contracts
import Cricket

/// Builds the one `UnifiedDisplayState` per match that every follower receives: every string pre-formatted.
public struct DisplayStateBuilder: Sendable {
    public init() {}

    /// The display state of `analysis` in `phase`.
    /// - Parameters:
    ///   - footer: the latest key event's line for the Lock Screen footer (the status line when nil).
    ///   - updatedAt: Unix epoch seconds of the data.
    /// - Parameter session: the session of the day in play (multi-day matches), for the status text.
    public func build(matchId: String, analysis: MatchAnalysis, phase: MatchPhase, footer: String? = nil,
                      updatedAt: Int64, session: Int? = nil) -> UnifiedDisplayState {
        let teams = TeamScores(analysis: analysis)
        let fixture = analysis.fixture
        let status = StatusLine(analysis: analysis, teams: teams, session: session)
        let statusText = status.text(phase: phase)
        let resultLine = phase == .ended ? status.result() : nil
        let title = "\(teams.name(fixture.localteamId)) vs \(teams.name(fixture.visitorteamId))"
        let subtitle = [fixture.round, fixture.venue?.name].compactMap { $0 }.filter { !$0.isEmpty }
            .joined(separator: " · ")

        guard let current = displayedInnings(analysis, phase: phase) else {
            return upcoming(matchId: matchId, phase: phase, title: title, subtitle: subtitle, statusText: statusText,
                            teams: teams, resultLine: resultLine, updatedAt: updatedAt)
        }
        let number = current.number
        let battingId = current.teamId
        let bowlingId = analysis.opponent(of: battingId)
        let batting = teams.teamScore(battingId, current: number)
        let bowling = teams.teamScore(bowlingId, current: number)
        let totals = analysis.totals(number)
        let score = teams.score(number)
        let overs = teams.overs(number)
        let rate = RateFormatter.runRate(runs: totals.runs, legalBalls: totals.legalBalls,
                                         ballsPerOver: analysis.format.ballsPerOver)
        let crease = CreaseView(analysis: analysis, innings: current)
        let chase = ChaseView(analysis: analysis, teams: teams)

        let expanded = UnifiedDisplayState.Expanded(
            batting: batting, bowling: bowling, batters: crease.batters(), bowler: crease.bowler(),
            lastBalls: crease.lastBalls(), target: chase.targetText(), equation: chase.equation(capitalised: true),
            runRate: "RR \(rate)", requiredRate: chase.requiredRate().map { "RRR \($0)" })
        let headline = ScoreFormatter.teamLine(abbr: teams.abbr(battingId), score: score, overs: overs)
        let detail: String
        if !bowling.score.isEmpty {
            detail = ScoreFormatter.teamLine(abbr: bowling.abbr, score: bowling.score, overs: bowling.overs)
        } else {
            detail = crease.battersLine()
        }
        return UnifiedDisplayState(
            matchId: matchId, matchDisplayState: phase, title: title, subtitle: subtitle, statusText: statusText,
            compactLeading: .init(teamAbbr: teams.abbr(battingId), score: score),
            compactTrailing: .init(overs: overs, runRate: rate),
            minimal: .init(text: score), expanded: expanded,
            lockScreen: .init(headline: headline, detail: detail, footer: footer ?? statusText),
            resultLine: resultLine, updatedAt: updatedAt)
    }

    /// The innings the display centres on: the current one, but the last main innings once a match that went
    /// to a Super Over has ended (the final scores are the main innings; the result line names the Super Over).
    func displayedInnings(_ analysis: MatchAnalysis, phase: MatchPhase) -> InningsLedger? {
        guard let current = analysis.current else { return nil }
        guard phase == .ended, analysis.format.isSuperOver(current.number) else { return current }
        return analysis.innings.last { !analysis.format.isSuperOver($0.number) } ?? current
    }

    func upcoming(matchId: String, phase: MatchPhase, title: String, subtitle: String, statusText: String,
                  teams: TeamScores, resultLine: String?, updatedAt: Int64) -> UnifiedDisplayState {
        let fixture = teams.analysis.fixture
        let home = teams.abbr(fixture.localteamId)
        let away = teams.abbr(fixture.visitorteamId)
        let empty = { (id: Int?) in UnifiedDisplayState.TeamScore(abbr: teams.abbr(id), name: teams.name(id), score: "", overs: "") }
        let expanded = UnifiedDisplayState.Expanded(
            batting: empty(fixture.localteamId), bowling: empty(fixture.visitorteamId), batters: [], bowler: nil,
            lastBalls: [], target: nil, equation: nil, runRate: "", requiredRate: nil)
        return UnifiedDisplayState(
            matchId: matchId, matchDisplayState: phase, title: title, subtitle: subtitle, statusText: statusText,
            compactLeading: .init(teamAbbr: home, score: "v \(away)"), compactTrailing: .init(overs: "", runRate: ""),
            minimal: .init(text: home), expanded: expanded,
            lockScreen: .init(headline: "\(home) v \(away)", detail: subtitle, footer: statusText),
            resultLine: resultLine, updatedAt: updatedAt)
    }
}
