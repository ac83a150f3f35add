import Cricket

/// The scorecard line of a dismissal: "Rohit Sharma c Kohli b Bumrah 45 (32)".
///
/// The batter by full name, fielders and bowlers by surname, as printed scorecards do; "c & b" when the
/// bowler took the catch, "c sub (Name)" for a substitute, "run out (Jadeja)", "lbw b Starc", "st Dhoni b Jadeja";
/// the kinds no bowler is credited with as the Laws name them: "retired out", "retired hurt", "retired not out",
/// "obstructing the field", "handled the ball", "hit the ball twice", "timed out".
public enum DismissalText {
    /// The "how out" part alone: "c Kohli b Bumrah".
    public static func how(_ kind: DismissalKind, bowler: String, fielder: String?, substitute: Bool = false,
                           caughtAndBowled: Bool = false) -> String {
        switch kind {
        case .caught:
            if caughtAndBowled { return "c & b \(bowler)" }
            if substitute { return fielder.map { "c sub (\($0)) b \(bowler)" } ?? "c sub b \(bowler)" }
            return fielder.map { "c \($0) b \(bowler)" } ?? "c ? b \(bowler)"
        case .bowled: return "b \(bowler)"
        case .lbw: return "lbw b \(bowler)"
        case .stumped: return fielder.map { "st \($0) b \(bowler)" } ?? "st b \(bowler)"
        case .runOut: return fielder.map { "run out (\($0))" } ?? "run out"
        case .hitWicket: return "hit wicket b \(bowler)"
        case .retiredOut: return "retired out"
        case .retiredHurt: return "retired hurt"
        case .retiredNotOut: return "retired not out"
        case .obstructing: return "obstructing the field"
        case .handledBall: return "handled the ball"
        case .hitBallTwice: return "hit the ball twice"
        case .timedOut: return "timed out"
        case .other: return "out"
        }
    }

    /// The whole line: batter, how out, runs (balls).
    public static func line(batter: String, how: String, runs: Int, balls: Int) -> String {
        "\(batter) \(how) \(ScoreFormatter.batter(runs: runs, balls: balls))"
    }

    /// The line for the wicket that fell on `ball`, with the dismissed batter's final runs and balls; when the feed
    /// does not say who was out (a second dismissal not yet on the batting card), "Batter timed out".
    public static func line(for ball: SportMonksBall, kind: DismissalKind, dismissed: BatterTally?,
                            players: PlayerDirectory) -> String {
        let fielderId = kind == .runOut ? (ball.runoutById ?? ball.catchstumpId) : ball.catchstumpId
        let substitute = ball.score.name.lowercased().contains("sub")
        let caughtAndBowled = kind == .caught && fielderId == ball.bowlerId && !substitute
        let fielder: String?
        if let fielderId, players.knows(fielderId) || !substitute {
            fielder = players.shortName(fielderId)
        } else {
            fielder = nil
        }
        let how = how(kind, bowler: players.shortName(ball.bowlerId), fielder: fielder, substitute: substitute,
                      caughtAndBowled: caughtAndBowled)
        guard let dismissed else { return "Batter \(how)" }
        return line(batter: players.fullName(dismissed.playerId), how: how, runs: dismissed.runs, balls: dismissed.balls)
    }
}
