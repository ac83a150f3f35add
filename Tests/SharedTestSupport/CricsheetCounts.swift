import Foundation

/// Counts computed straight from a Cricsheet JSON file, independently of the replay and detector code:
/// per innings (numbered 1, 2, … over innings with deliveries, "S<n>") the fours, sixes, wickets (one per team
/// dismissal, so a delivery with two counts two), fifties,
/// hundreds, five-fors and hat-tricks, and each team's final main-innings score text.
public struct CricsheetCounts: Sendable {
    /// The total of `kind` over every innings.
    public func total(_ kind: String) -> Int { counts[kind]?.values.reduce(0, +) ?? 0 }

    /// kind ("four", "six", "wicket", "fifty", "hundred", "fiveFor", "hatTrick") → scoreboard → count.
    public var counts: [String: [String: Int]] = [:]
    /// team name → "445 & 89/7d".
    public var finalScores: [String: String] = [:]

    static let notWickets: Set<String> = ["retired hurt", "retired not out"]
    static let bowlerKinds: Set<String> = ["bowled", "caught", "caught and bowled", "lbw", "stumped", "hit wicket"]

    /// - Parameter deliveries: count only the match's first `deliveries` deliveries (nil: all of them); the
    ///   final scores then describe that point.
    public init(raw: [String: Any], deliveries limit: Int? = nil) {
        var seen = 0
        let info = raw["info"] as? [String: Any] ?? [:]
        let teams = info["teams"] as? [String] ?? []
        var streak: [String: Int] = [:]
        var mainScores: [String: [String]] = [:]
        var number = 0
        for case let innings as [String: Any] in raw["innings"] as? [Any] ?? [] {
            let overs = innings["overs"] as? [[String: Any]] ?? []
            let deliveries = overs.flatMap { $0["deliveries"] as? [[String: Any]] ?? [] }
            guard !deliveries.isEmpty else { continue }
            number += 1
            let board = "S\(number)"
            var batterRuns: [String: Int] = [:]
            var bowlerWickets: [String: Int] = [:]
            var runs = 0, wickets = 0
            for delivery in deliveries {
                if let limit, seen >= limit { break }
                seen += 1
                let r = delivery["runs"] as? [String: Any] ?? [:]
                let bat = r["batter"] as? Int ?? 0
                runs += r["total"] as? Int ?? 0
                let boundary = (r["non_boundary"] as? Bool) != true
                if bat == 4 && boundary { add("four", board) }
                if bat == 6 && boundary { add("six", board) }
                let batter = delivery["batter"] as? String ?? ""
                let before = batterRuns[batter, default: 0]
                batterRuns[batter] = before + bat
                if before < 50 && before + bat >= 50 { add("fifty", board) }
                if before < 100 && before + bat >= 100 { add("hundred", board) }
                let kinds = (delivery["wickets"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }
                let teamWickets = kinds.filter { !Self.notWickets.contains($0) }
                // One wicket event per dismissal that counts against the side (a catch and a timed out: two).
                for _ in teamWickets { add("wicket", board) }
                wickets += teamWickets.count
                let bowler = delivery["bowler"] as? String ?? ""
                if kinds.contains(where: Self.bowlerKinds.contains) {
                    let w = bowlerWickets[bowler, default: 0] + 1
                    bowlerWickets[bowler] = w
                    if w == 5 { add("fiveFor", board) }
                    streak[bowler, default: 0] += 1
                    if streak[bowler] == 3 { add("hatTrick", board) }
                } else {
                    streak[bowler] = 0
                }
            }
            let penalty = innings["penalty_runs"] as? [String: Any] ?? [:]
            runs += (penalty["pre"] as? Int ?? 0) + (penalty["post"] as? Int ?? 0)
            if (innings["super_over"] as? Bool) != true {
                let declared = (innings["declared"] as? Bool) == true
                let text = wickets >= 10 ? "\(runs)" : "\(runs)/\(wickets)\(declared ? "d" : "")"
                mainScores[innings["team"] as? String ?? "", default: []].append(text)
            }
        }
        for team in teams { finalScores[team] = (mainScores[team] ?? []).joined(separator: " & ") }
    }

    mutating func add(_ kind: String, _ board: String) { counts[kind, default: [:]][board, default: 0] += 1 }
}
