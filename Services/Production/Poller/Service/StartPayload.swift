import Contracts
import Foundation

/// The orchestrator's push bodies: the push-to-start of a match, `Contracts.LiveActivityPayload.matchStart`
/// (the same builder as the api's) over the detector's display state, or over a minimal state made
/// from the schedule card when the detector has not described the match yet.
enum StartPayload {
    /// The JSON text; `state` is the detector's display state, or nil to build a minimal one from the card; with
    /// `channelId`, the start subscribes the activity to that broadcast channel.
    static func json(card: MatchCard, state: UnifiedDisplayState?, timestamp: Int64, channelId: String? = nil)
        throws(LiveActivityPayloadError) -> String
    {
        try LiveActivityPayload.matchStart(state: state ?? minimalState(card, updatedAt: timestamp), timestamp: timestamp,
                                           channelId: channelId).jsonString()
    }

    /// The end body of an activity replaced by a new one (`LiveActivityPayload.dismissedNow`), same state rules.
    static func replacedJSON(card: MatchCard, state: UnifiedDisplayState?, timestamp: Int64) throws(LiveActivityPayloadError) -> String {
        try LiveActivityPayload.dismissedNow(state: state ?? minimalState(card, updatedAt: timestamp), timestamp: timestamp).jsonString()
    }

    /// An upcoming/live state made from the schedule card, for a match the detector has not described yet.
    static func minimalState(_ card: MatchCard, updatedAt: Int64) -> UnifiedDisplayState {
        // The card does not say who bats: the side with a score (home when both or neither have one).
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
}

extension MatchCard {
    /// The card used when a match's stored card cannot be read: a live match with no names.
    static func placeholder(matchId: String) -> MatchCard {
        MatchCard(matchId: matchId, startsAt: 0, status: "", phase: .live, title: "Match \(matchId)", subtitle: "",
                  home: .init(name: "", abbr: "", score: "", logoUrl: nil), away: .init(name: "", abbr: "", score: "", logoUrl: nil),
                  statusText: "Live")
    }
}
