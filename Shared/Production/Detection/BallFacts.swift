import Foundation
import Cricket

/// How a batter was dismissed, read from the SportMonks score name ("Catch Out", "1 Bye + Run Out", …).
public enum DismissalKind: String, Sendable, Codable, CaseIterable {
    case caught, bowled, lbw, stumped, runOut, hitWicket, retiredOut, obstructing, handledBall, timedOut, other

    /// Classifies a score name; nil when the name describes no dismissal.
    public init(scoreName name: String) {
        let lower = name.lowercased()
        if lower.contains("run out") { self = .runOut }
        else if lower.contains("stump") { self = .stumped }
        else if lower.contains("lbw") { self = .lbw }
        else if lower.contains("catch") || lower.contains("caught") { self = .caught }
        else if lower.contains("hit wicket") { self = .hitWicket }
        else if lower.contains("bowled") { self = .bowled }
        else if lower.contains("retired") { self = .retiredOut }
        else if lower.contains("obstruct") { self = .obstructing }
        else if lower.contains("handled") { self = .handledBall }
        else if lower.contains("timed") { self = .timedOut }
        else { self = .other }
    }

    /// Dismissals credited to the bowler (they count for five-fors and hat-tricks).
    public var creditsBowler: Bool {
        switch self {
        case .caught, .bowled, .lbw, .stumped, .hitWicket: true
        case .runOut, .retiredOut, .obstructing, .handledBall, .timedOut, .other: false
        }
    }
}

/// The cricket facts of one delivery, derived from its SportMonks score entry.
public struct BallFacts: Sendable, Equatable {
    public let teamRuns: Int
    /// Runs off the bat (a wide has none; a no-ball's penalty is not the batter's).
    public let batRuns: Int
    /// Runs charged to the bowler: bat runs + wides + no-ball runs (not byes or leg byes).
    public let bowlerRuns: Int
    public let isWide: Bool
    public let isNoBall: Bool
    public let isLegal: Bool
    public let facedByBatter: Bool
    public let isFour: Bool
    public let isSix: Bool
    /// A team wicket (retired hurt / not out is not one).
    public let isWicket: Bool
    public let dismissal: DismissalKind?
    public let byes: Int
    public let legByes: Int

    public init(_ score: SportMonksScore) {
        teamRuns = score.teamRuns
        isWide = Self.contains(score.name, "wide")
        isNoBall = score.isNoBall
        isLegal = score.ball && score.noball == 0 && !isWide
        facedByBatter = !isWide
        let penalty = Self.penaltyRuns(in: score.name)
        batRuns = isWide ? 0 : max(0, score.runs - score.noballRuns - penalty)
        bowlerRuns = max(0, score.runs - penalty)
        isFour = score.four
        isSix = score.six
        isWicket = score.isWicket
        dismissal = score.isWicket ? DismissalKind(scoreName: score.name) : nil
        byes = score.bye
        legByes = score.legBye
    }

    /// Penalty runs named in a score name ("1 Run + 5 Penalty Runs" → 5); SportMonks folds them into `runs`.
    static func penaltyRuns(in name: String) -> Int {
        guard contains(name, "penalty"), let range = name.range(of: "Penalty", options: .caseInsensitive) else { return 0 }
        let before = name[..<range.lowerBound].split(separator: "+").last ?? ""
        return Int(before.trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "") ?? 0
    }

    /// ASCII case-insensitive substring test on UTF-8 (the Foundation localized search is far slower, and
    /// this runs for every ball of every snapshot). Same answer as `SportMonksScore.isWide` for ASCII names.
    static func contains(_ text: String, _ lowercaseNeedle: StaticString) -> Bool {
        let needle = UnsafeBufferPointer(start: lowercaseNeedle.utf8Start, count: lowercaseNeedle.utf8CodeUnitCount)
        var text = text
        return text.withUTF8 { haystack in
            guard haystack.count >= needle.count else { return false }
            for start in 0...(haystack.count - needle.count) {
                var matched = true
                for offset in 0..<needle.count {
                    var byte = haystack[start + offset]
                    if byte >= 65 && byte <= 90 { byte += 32 }
                    if byte != needle[offset] { matched = false; break }
                }
                if matched { return true }
            }
            return false
        }
    }

    /// True when the wicket is credited to the bowler.
    public var bowlerWicket: Bool { dismissal?.creditsBowler ?? false }

    /// Runs the batters ran (decides who is on strike next): boundaries and penalties excluded.
    public var runsRan: Int {
        if isFour || isSix { return 0 }
        if isWide { return max(0, teamRuns - 1) }
        return batRuns + byes + legByes
    }

    /// The label of the delivery in the "last balls" strip: "•", "1", "4", "6", "W", "1wd", "5nb", "2lb", "1b".
    public var label: String {
        if isWicket { return "W" }
        if isWide { return "\(teamRuns)wd" }
        if isNoBall { return "\(teamRuns)nb" }
        if legByes > 0 { return "\(teamRuns)lb" }
        if byes > 0 { return "\(teamRuns)b" }
        return teamRuns == 0 ? "•" : "\(teamRuns)"
    }
}
