/// The `note` texts of a replayed fixture.
public enum ResultText {
    /// Final result: "India won by 7 wickets", "India won by 89 runs (D/L method)",
    /// "England won by an innings and 12 runs", "Match tied (England won the Super Over)",
    /// "Match tied (India won the bowl-out)", "Match tied (D/L method)", "Match drawn", "No result".
    public static func result(of outcome: CricsheetOutcome) -> String {
        let method = outcome.method.map { $0 == "D/L" ? " (D/L method)" : " (\($0))" } ?? ""
        if let winner = outcome.winner { return "\(winner) won\(margin(of: outcome))\(method)" }
        switch outcome.result {
        case "tie":
            if let eliminator = outcome.eliminator { return "Match tied (\(eliminator) won the Super Over)" }
            if let bowlOut = outcome.bowlOut { return "Match tied (\(bowlOut) won the bowl-out)" }
            return "Match tied\(method)"
        case "draw": return "Match drawn"
        case "no result": return "No result"
        case "abandoned": return "Match abandoned"
        default: return outcome.result ?? "Finished"
        }
    }

    /// The winner's margin as Cricsheet records it: " by an innings and 12 runs", " by 89 runs", " by 7 wickets",
    /// or "" when it has none.
    public static func margin(of outcome: CricsheetOutcome) -> String {
        guard let by = outcome.by else { return "" }
        if by.innings != nil, let runs = by.runs { return " by an innings and \(plural(runs, "run"))" }
        if let runs = by.runs { return " by \(plural(runs, "run"))" }
        if let wickets = by.wickets { return " by \(plural(wickets, "wicket"))" }
        return ""
    }

    /// "Target 183 runs", or "Target 302 runs from 40 overs" when the overs were revised.
    public static func target(runs: Int, revisedOvers: Double?) -> String {
        guard let overs = revisedOvers else { return "Target \(runs) runs" }
        let text = overs == overs.rounded() ? String(Int(overs)) : String(overs)
        return "Target \(runs) runs from \(text) overs"
    }

    static func plural(_ count: Int, _ unit: String) -> String { count == 1 ? "1 \(unit)" : "\(count) \(unit)s" }
}
