import Contracts
import Foundation

/// The display state a push shows when the detector has not described the match yet: push-to-start and end
/// pushes need a content state. The one fallback every push uses (the orchestrator's starts, the api's starts and
/// ends, rollovers).
public enum FallbackDisplayState {
    /// The detector's state when there is one, else a state built from the schedule card, else a bare one.
    public static func resolve(state: UnifiedDisplayState?, card: MatchCard?, matchId: String, updatedAt: Int64) -> UnifiedDisplayState {
        state ?? fromCard(card ?? placeholderCard(matchId: matchId), updatedAt: updatedAt)
    }

    /// A state made from the schedule card; every string comes pre-formatted from the card. The card does not say
    /// who bats: the side with a score is taken as batting (home when both or neither have one), and its score's
    /// "(overs)" part fills the overs.
    public static func fromCard(_ card: MatchCard, updatedAt: Int64) -> UnifiedDisplayState {
        let batting = card.home.score.isEmpty && !card.away.score.isEmpty ? card.away : card.home
        let bowling = batting == card.home ? card.away : card.home
        func line(_ team: MatchCard.Team) -> UnifiedDisplayState.TeamScore {
            let parts = team.score.split(separator: " ", maxSplits: 1)
            let overs = parts.count > 1 ? parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "()")) : ""
            return .init(abbr: team.abbr, name: team.name, score: parts.first.map(String.init) ?? "", overs: overs)
        }
        let battingLine = line(batting), bowlingLine = line(bowling)
        let headline = battingLine.score.isEmpty ? card.title : "\(batting.abbr) \(battingLine.score)"
        return UnifiedDisplayState(
            matchId: card.matchId, matchDisplayState: card.phase, title: card.title, subtitle: card.subtitle,
            statusText: card.statusText,
            compactLeading: .init(teamAbbr: batting.abbr, score: battingLine.score),
            compactTrailing: .init(overs: battingLine.overs, runRate: ""),
            minimal: .init(text: battingLine.score.isEmpty ? batting.abbr : battingLine.score),
            expanded: .init(batting: battingLine, bowling: bowlingLine, batters: [], bowler: nil, lastBalls: [],
                            target: nil, equation: nil, runRate: "", requiredRate: nil),
            lockScreen: .init(headline: headline, detail: "\(bowling.abbr) \(bowlingLine.score)".trimmingCharacters(in: .whitespaces),
                              footer: card.statusText),
            resultLine: card.phase == .ended ? card.statusText : nil, updatedAt: updatedAt)
    }

    /// The card of a match with no readable card: a live match with no names and no status text (nothing is
    /// claimed that is not known; the next update fills the state).
    public static func placeholderCard(matchId: String) -> MatchCard {
        MatchCard(matchId: matchId, startsAt: 0, status: "", phase: .live, title: "Match \(matchId)", subtitle: "",
                  home: .init(name: "", abbr: "", score: "", logoUrl: nil), away: .init(name: "", abbr: "", score: "", logoUrl: nil),
                  statusText: "")
    }
}
