import Contracts
import Cricket

/// Match-level events: match start, super over start, innings end, target set or revised (D/L),
/// interruption and resumption, close of play on a day of a multi-day match, result — each announced
/// once (keys in `DetectorState.phaseKeys`, targets in `announcedTargets`, stoppages by status transition).
struct PhaseEventDetector {
    let analysis: MatchAnalysis
    let teams: TeamScores
    let phase: MatchPhase

    /// Index of the last delivery of innings `number` (-1 when it has none) — where its events sort.
    func endPosition(_ number: Int) -> Int {
        analysis.ledger(number)?.ballIndexes.last ?? analysis.innings.filter { $0.number < number }
            .compactMap { $0.ballIndexes.last }.max() ?? -1
    }

    func events(state: DetectorState, previousStatus: SportMonksStatus?) -> [DetectedEvent] {
        var out: [DetectedEvent] = []
        let end = analysis.balls.count
        func add(_ kind: KeyEventKind, _ key: String, _ scoreboard: String?, _ title: String, _ body: String,
                 position: Int, sub: Int, revision: Bool = false) {
            out.append(DetectedEvent(kind: kind, key: key, scoreboard: scoreboard, ballId: nil, title: title, body: body,
                                     isRevision: revision, position: position, subOrder: sub))
        }
        let started = phase != .upcoming && !(phase == .ended && analysis.balls.isEmpty)
        if started, !state.phaseKeys.contains("matchStart") {
            add(.matchStart, "matchStart", nil, "Match started", StatusLine(analysis: analysis, teams: teams).toss() ?? "",
                position: -1, sub: 0)
        }
        for innings in analysis.innings {
            let number = innings.number
            if let index = analysis.format.superOverIndex(number), (number - 3) % 2 == 0 {
                let key = "superOver:\(index)"
                if !state.phaseKeys.contains(key) {
                    let label = ScoreFormatter.superOverLabel(index)
                    add(.superOver, key, innings.scoreboard, "\(label)!",
                        "\(teams.name(innings.teamId)) bat first in the \(label)", position: endPosition(number - 1), sub: 12)
                }
            }
            if analysis.isComplete(number), !state.phaseKeys.contains("inningsEnd:\(innings.scoreboard)") {
                add(.inningsEnd, "inningsEnd:\(innings.scoreboard)", innings.scoreboard,
                    analysis.isAllOut(number) ? "All out" : "End of innings", inningsEndBody(number),
                    position: endPosition(number), sub: 10)
            }
        }
        if let target = analysis.activeTarget, state.announcedTargets[target.scoreboard] != target.signature {
            let number = InningsLedger.number(of: target.scoreboard)
            let revision = state.announcedTargets[target.scoreboard] != nil
            let chase = ChaseView(analysis: analysis, teams: teams)
            let body = [chase.targetText(), chase.teamEquation()].compactMap { $0 }.joined(separator: " · ")
            add(.targetSet, "targetSet:\(target.scoreboard):\(target.signature)", target.scoreboard,
                revision ? "Revised target" : "Target set", body, position: endPosition(number - 1), sub: 11,
                revision: revision)
        }
        let wasInterrupted = previousStatus.map { if case .interrupted = $0 { true } else { false } } ?? false
        if case .interrupted = analysis.fixture.status, !wasInterrupted {
            add(.interruption, "interruption:\(analysis.maxBallId)", analysis.current?.scoreboard, "Play interrupted",
                StatusLine(analysis: analysis, teams: teams).text(phase: phase), position: end, sub: 20)
        } else if wasInterrupted, phase == .live {
            add(.resumed, "resumed:\(analysis.maxBallId)", analysis.current?.scoreboard, "Play resumed",
                StatusLine(analysis: analysis, teams: teams).text(phase: phase), position: end, sub: 21)
        }
        if case .stumps(let day) = analysis.fixture.status, !state.phaseKeys.contains("stumps:\(day)") {
            add(.stumps, "stumps:\(day)", analysis.current?.scoreboard, "Stumps, Day \(day)",
                StatusLine(analysis: analysis, teams: teams).text(phase: phase), position: end, sub: 25)
        }
        if phase == .ended, !state.phaseKeys.contains("result") {
            add(.result, "result", nil, "Result", StatusLine(analysis: analysis, teams: teams).result(), position: end, sub: 30)
        }
        return out
    }

    /// "India 322/6 (50) · PAK need 302 off 240", "Birmingham Phoenix 141/9 (100 balls) · SB need 142 from 100 balls".
    func inningsEndBody(_ number: Int) -> String {
        let team = analysis.ledger(number)?.teamId
        let line = "\(teams.name(team)) \(teams.score(number)) (\(teams.overs(number)))"
        guard let next = analysis.target(for: number + 1) else { return line }
        let equation = teams.equation(runsNeeded: next.runs, ballsLeft: next.maxBalls)
            .map { "\(teams.abbr(analysis.battingTeam(number + 1))) \($0)" }
        return [line, equation].compactMap { $0 }.joined(separator: " · ")
    }
}
