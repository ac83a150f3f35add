import Foundation

/// What a Live Activity push shows, read from its payload as the app would: the match (`content-state.matchId`) and the
/// batting side's score and progress (`expanded.batting`: "245 & 120/3", "12.3" or "90 balls"). Each distinct payload is
/// parsed once (a job's pushes share one).
struct ShownScores {
    struct Shown: Hashable {
        var matchId: String
        var score: ScoreIndex.Score
    }

    private var known: [String: Shown?] = [:]

    /// What `payload` shows; nil for a payload with no batting score (not started, a background push, an alert-less end
    /// before play) or one the checker cannot read.
    mutating func shown(_ payload: String) -> Shown? {
        if let answer = known[payload] { return answer }
        let answer = Self.parse(payload)
        known[payload] = answer
        return answer
    }

    static func parse(_ payload: String) -> Shown? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any],
              let state = (object["aps"] as? [String: Any])?["content-state"] as? [String: Any],
              let matchId = state["matchId"] as? String,
              let batting = (state["expanded"] as? [String: Any])?["batting"] as? [String: Any],
              let scoreText = batting["score"] as? String, let oversText = batting["overs"] as? String,
              let runs = runs(scoreText), let legalBalls = legalBalls(oversText) else { return nil }
        return Shown(matchId: matchId, score: ScoreIndex.Score(runs: runs, legalBalls: legalBalls))
    }

    /// The runs of the innings in progress: the last of "245 & 120/3", before any "/" ("89/7d" → 89, "82" → 82).
    static func runs(_ text: String) -> Int? {
        guard let last = text.split(separator: "&").last else { return nil }
        let current = last.trimmingCharacters(in: .whitespaces)
        return Int(current.split(separator: "/", maxSplits: 1).first ?? "")
    }

    /// Legal balls from "12.3" (six-ball overs), "20", or "90 balls" / "1 ball" (The Hundred).
    static func legalBalls(_ text: String) -> Int? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let space = trimmed.firstIndex(of: " ") {
            guard trimmed[space...].trimmingCharacters(in: .whitespaces).hasPrefix("ball") else { return nil }
            return Int(trimmed[..<space])
        }
        let parts = trimmed.split(separator: ".", omittingEmptySubsequences: false)
        guard let overs = parts.first.flatMap({ Int($0) }), overs >= 0, overs <= 10_000 else { return nil }
        guard parts.count > 1 else { return overs * 6 }
        guard parts.count == 2, let balls = Int(parts[1]), (0..<6).contains(balls) else { return nil }
        return overs * 6 + balls
    }
}
