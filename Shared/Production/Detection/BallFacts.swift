import Foundation
import Cricket

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
    /// Every dismissal on the delivery, retirements included, in the order the score names them (one delivery
    /// can carry several: a catch and a timed out).
    public let dismissals: [DismissalKind]
    /// Wickets the delivery costs the side: one per dismissal that counts against it.
    public let teamWickets: Int
    /// Wickets on the delivery credited to the bowler.
    public let bowlerWickets: Int
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
        // The name is only read for a wicket or a retirement: most deliveries are neither.
        dismissals = score.isWicket || Self.contains(score.name, "retired") || Self.contains(score.name, "hurt")
            ? score.dismissals : []
        teamWickets = score.isWicket ? max(1, dismissals.count { $0.countsAgainstTeam }) : 0
        bowlerWickets = score.isWicket ? dismissals.count { $0.creditsBowler } : 0
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

    /// The dismissals that count against the side, in order (`teamWickets` of them; `.other` when unnamed).
    public var teamDismissals: [DismissalKind] {
        let named = dismissals.filter(\.countsAgainstTeam)
        return named.count == teamWickets ? named : named + Array(repeating: .other, count: teamWickets - named.count)
    }

    /// The first dismissal that counts against the side (nil when none does).
    public var dismissal: DismissalKind? { teamDismissals.first }

    /// True when a wicket on the delivery is credited to the bowler.
    public var bowlerWicket: Bool { bowlerWickets > 0 }

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
