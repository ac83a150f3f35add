/// Score lines: "87/6", all out "82", declared "89/7d", Test pairs "245 & 120/3", the chase equation.
public enum ScoreFormatter {
    /// One innings' score. All out shows the runs alone; a declaration adds "d".
    public static func score(runs: Int, wickets: Int, allOut: Bool = false, declared: Bool = false) -> String {
        if allOut { return "\(runs)" }
        return declared ? "\(runs)/\(wickets)d" : "\(runs)/\(wickets)"
    }

    /// A team's innings joined with " & " (Tests): ["245", "120/3"] → "245 & 120/3".
    public static func joined(_ innings: [String]) -> String {
        innings.joined(separator: " & ")
    }

    /// "need 45 off 30" (limited overs), "need 42 from 30 balls" when the format counts balls (The Hundred),
    /// "need 45 to win" (no ball limit), nil once nothing is needed.
    public static func equation(runsNeeded: Int, ballsLeft: Int?, countsBalls: Bool = false) -> String? {
        guard runsNeeded > 0 else { return nil }
        guard let ballsLeft else { return "need \(runsNeeded) to win" }
        if countsBalls { return "need \(runsNeeded) from \(OversFormatter.balls(ballsLeft))" }
        return "need \(runsNeeded) off \(max(0, ballsLeft))"
    }

    /// The same with a capital first letter, for a line of its own: "Need 45 off 30".
    public static func capitalised(_ text: String) -> String {
        guard let first = text.first else { return text }
        return first.uppercased() + text.dropFirst()
    }

    /// "Super Over" for the first super over, "Super Over 2" for the second, …
    public static func superOverLabel(_ index: Int) -> String {
        index <= 1 ? "Super Over" : "Super Over \(index)"
    }

    /// "Target 181", "Target 302 (40 ov, DLS)" for a revised target ("Target 120 (80 balls, DLS)" when the
    /// allocation is in balls), "Target 16 (Super Over)".
    public static func target(runs: Int, revisedOvers: String? = nil, revisedBalls: Int? = nil,
                              superOver: Bool = false) -> String {
        if superOver { return "Target \(runs) (Super Over)" }
        if let revisedBalls { return "Target \(runs) (\(OversFormatter.balls(revisedBalls)), DLS)" }
        if let revisedOvers { return "Target \(runs) (\(revisedOvers) ov, DLS)" }
        return "Target \(runs)"
    }

    /// A batter's line: "45 (32)", "45* (32)" with `notOut` marking.
    public static func batter(runs: Int, balls: Int, notOut: Bool = false) -> String {
        "\(runs)\(notOut ? "*" : "") (\(balls))"
    }

    /// A bowler's figures: wickets-runs (overs): "2-24 (3.4)"; in balls when the format counts them:
    /// "2-24 (15 balls)".
    public static func bowler(wickets: Int, runs: Int, legalBalls: Int, format: MatchFormat = .limited(overs: 20)) -> String {
        "\(wickets)-\(runs) (\(OversFormatter.progress(legalBalls: legalBalls, format: format)))"
    }

    /// "IND 87/6 (12.3)"; without overs when `overs` is empty.
    public static func teamLine(abbr: String, score: String, overs: String) -> String {
        overs.isEmpty ? "\(abbr) \(score)" : "\(abbr) \(score) (\(overs))"
    }
}
