import Contracts

/// A display state built from a schedule card, for pushes about a match the detector has not
/// described yet (push-to-start needs a content state). All strings come pre-formatted from the card.
enum DisplayStateFallback {
    static func from(card: MatchCard, now: Int64) -> UnifiedDisplayState {
        let home = UnifiedDisplayState.TeamScore(abbr: card.home.abbr, name: card.home.name, score: card.home.score, overs: "")
        let away = UnifiedDisplayState.TeamScore(abbr: card.away.abbr, name: card.away.name, score: card.away.score, overs: "")
        let headline = [card.home.abbr, card.home.score].filter { !$0.isEmpty }.joined(separator: " ")
        return UnifiedDisplayState(
            matchId: card.matchId, matchDisplayState: card.phase, title: card.title, subtitle: card.subtitle,
            statusText: card.statusText,
            compactLeading: .init(teamAbbr: card.home.abbr, score: card.home.score),
            compactTrailing: .init(overs: "", runRate: ""),
            minimal: .init(text: card.home.score.isEmpty ? card.home.abbr : card.home.score),
            expanded: .init(
                batting: home, bowling: away, batters: [], bowler: nil, lastBalls: [], target: nil, equation: nil,
                runRate: "", requiredRate: nil),
            lockScreen: .init(headline: headline, detail: card.title, footer: card.statusText),
            resultLine: nil, updatedAt: now)
    }

    /// The last resort when neither a display state nor a card exists.
    static func bare(matchId: String, now: Int64) -> UnifiedDisplayState {
        let card = MatchCard(
            matchId: matchId, startsAt: now, status: "", phase: .live, title: "Match \(matchId)", subtitle: "",
            home: .init(name: "", abbr: "", score: "", logoUrl: nil), away: .init(name: "", abbr: "", score: "", logoUrl: nil),
            statusText: "")
        return from(card: card, now: now)
    }
}
