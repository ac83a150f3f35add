import CricsheetReplay

/// The result line a broadcaster shows for a Cricsheet match, from its `outcome` (and, for a tie settled by super
/// overs, the super overs' own totals): the independent expectation for the detector's `ResultLine`, one wording
/// per row of docs/FORMATS.md's "Result lines" table.
public enum ExpectedResultLine {
    public static func of(_ match: CricsheetMatch) -> String {
        let outcome = match.info.outcome
        let method = outcome.method.map { $0 == "D/L" || $0 == "DLS" ? " (DLS method)" : "" } ?? ""
        if let winner = outcome.winner {
            if let award = outcome.method.flatMap(award) { return "\(winner) won (\(award))" }
            return "\(winner) won\(ResultText.margin(of: outcome))\(method)"
        }
        switch outcome.result {
        case "tie":
            if let eliminator = outcome.eliminator { return "Match tied (\(eliminator) \(superOverWin(match)))" }
            if let bowlOut = outcome.bowlOut { return "Match tied (\(bowlOut) won the bowl-out)" }
            return "Match tied\(method)"
        case "draw": return "Match drawn"
        case "no result":
            return match.totalDeliveries == 0 ? "Match abandoned without a ball bowled" : "No result"
        default: return "Match abandoned without a ball bowled"
        }
    }

    /// "won the Super Over", "won the 2nd Super Over", or "won on boundary count" when the last super over tied.
    static func superOverWin(_ match: CricsheetMatch) -> String {
        let superOvers = match.innings.filter { $0.superOver && $0.deliveryCount > 0 }
        let pairs = (superOvers.count + 1) / 2
        if superOvers.count >= 2, superOvers.count % 2 == 0,
           total(superOvers[superOvers.count - 2]) == total(superOvers[superOvers.count - 1]) {
            return "won on boundary count"
        }
        return pairs <= 1 ? "won the Super Over" : "won the \(pairs == 2 ? "2nd" : pairs == 3 ? "3rd" : "\(pairs)th") Super Over"
    }

    static func total(_ innings: CricsheetInnings) -> Int {
        innings.overs.reduce(innings.penaltyRuns.map { ($0.pre ?? 0) + ($0.post ?? 0) } ?? 0) { sum, over in
            sum + over.deliveries.reduce(0) { $0 + $1.runs.total }
        }
    }

    static func award(_ method: String) -> String? {
        switch method.lowercased() {
        case "awarded": "awarded"
        case "conceded": "conceded"
        case "forfeited", "forfeit": "forfeited"
        default: nil
        }
    }
}
