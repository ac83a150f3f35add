import Contracts
import Cricket

/// Tier1: events of individual deliveries — four, six, wicket (with the dismissal line), batter fifty and
/// hundred, bowler five-for and hat-trick.
///
/// A delivery with several dismissals (a catch and a timed out, a run out and a retired out) gives one wicket event
/// per dismissal, in the order the score names them; the first carries every dismissal line ("2 wickets! …"), so
/// the one alert the delivery sounds names them all, and the others are silent like any lesser event.
///
/// Hat-trick: three consecutive deliveries *by the same bowler*, in the same match, each taking a wicket
/// credited to him (bowled, caught, lbw, stumped, hit wicket). "Consecutive" counts every delivery he bowls,
/// wides and no-balls included, in delivery order; deliveries by other bowlers in between do not count, so a
/// hat-trick can span his overs (and innings). A delivery of his without such a wicket (a run out included)
/// resets the count. The event fires when the count reaches 3; a fourth in a row does not fire again.
struct BallEventDetector {
    let analysis: MatchAnalysis
    let teams: TeamScores

    /// Events of every delivery in `analysis.moments`, skipping milestones already in `announced`.
    func events(announced: Set<String>) -> [DetectedEvent] {
        var result: [DetectedEvent] = []
        for moment in analysis.moments { result += events(of: moment, announced: announced) }
        return result
    }

    func events(of moment: BallMoment, announced: Set<String>) -> [DetectedEvent] {
        let ball = moment.ball
        let facts = moment.facts
        let players = analysis.players
        let scoreLine = ScoreFormatter.teamLine(
            abbr: teams.abbr(ball.teamId),
            score: ScoreFormatter.score(runs: moment.totalsAfter.runs, wickets: moment.totalsAfter.wickets),
            overs: teams.progress(legalBalls: moment.totalsAfter.legalBalls))
        func event(_ kind: KeyEventKind, _ key: String, _ title: String, _ body: String, _ sub: Int) -> DetectedEvent {
            DetectedEvent(kind: kind, key: key, scoreboard: ball.scoreboard, ballId: ball.id, title: title, body: body,
                          position: moment.index, subOrder: sub)
        }
        var out: [DetectedEvent] = []
        let striker = moment.lines.strikerAfter
        let strikerLine = "\(players.fullName(striker.playerId)) \(ScoreFormatter.batter(runs: striker.runs, balls: striker.balls))"
        if facts.isFour { out.append(event(.four, "four:\(ball.id)", "Four!", "\(strikerLine) · \(scoreLine)", 0)) }
        if facts.isSix { out.append(event(.six, "six:\(ball.id)", "Six!", "\(strikerLine) · \(scoreLine)", 0)) }

        var dismissalLine: String?
        let dismissals = moment.lines.dismissals
        if facts.isWicket, !dismissals.isEmpty {
            let lines = dismissals.map { DismissalText.line(for: ball, kind: $0.kind, dismissed: $0.batter, players: players) }
            // Named one by one up to three; beyond, the first two and a count (ten retired out on one ball must not
            // take the alert and the footer past the 4 KB push).
            let all = lines.count <= 3 ? lines.joined(separator: " · ")
                : (lines.prefix(2) + ["and \(lines.count - 2) more"]).joined(separator: " · ")
            dismissalLine = all
            let title = lines.count == 1 ? "Wicket! \(scoreLine)" : "\(lines.count) wickets! \(scoreLine)"
            out.append(event(.wicket, "wicket:\(ball.id)", title, all, 1))
            for (number, line) in lines.enumerated().dropFirst() {
                out.append(event(.wicket, "wicket:\(ball.id):\(number + 1)", "Wicket! \(scoreLine)", line, 1))
            }
        }

        let before = moment.lines.strikerBefore.runs
        for (threshold, kind, title) in [(50, KeyEventKind.fifty, "Fifty!"), (100, .hundred, "Hundred!")]
        where before < threshold && striker.runs >= threshold {
            let key = "\(kind.rawValue):\(ball.scoreboard):\(striker.playerId)"
            guard !announced.contains(key) else { continue }
            out.append(event(kind, key, title, "\(strikerLine) · \(scoreLine)", kind == .fifty ? 2 : 3))
        }

        let bowler = moment.lines.bowlerAfter
        let figures = "\(players.fullName(bowler.playerId)) \(teams.figures(bowler))"
        let withDismissal = dismissalLine.map { "\(figures) · \($0)" } ?? figures
        if moment.lines.bowlerBefore.wickets < 5, bowler.wickets >= 5 {
            let key = "fiveFor:\(ball.scoreboard):\(bowler.playerId)"
            if !announced.contains(key) { out.append(event(.fiveFor, key, "Five-for!", withDismissal, 4)) }
        }
        if moment.bowlerStreak == 3 {
            let key = "hatTrick:\(ball.id)"
            if !announced.contains(key) {
                out.append(event(.hatTrick, key, "Hat-trick! \(players.fullName(bowler.playerId))", withDismissal, 5))
            }
        }
        return out
    }
}
