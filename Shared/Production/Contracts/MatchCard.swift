/// A match as the schedule and match lists show it, pre-formatted by the poller (stored in
/// `matches.card`, served by `GET /matches?date=` and `GET /matches/:matchId`).
public struct MatchCard: Codable, Sendable, Equatable {
    /// SportMonks fixture id, as text.
    public var matchId: String
    /// Scheduled start, Unix epoch seconds.
    public var startsAt: Int64
    /// The feed's status string as received ("NS", "1st Innings", "Finished", …).
    public var status: String
    public var phase: MatchPhase
    /// "India vs Australia".
    public var title: String
    /// "2nd T20I · Indian Premier League · Wankhede Stadium".
    public var subtitle: String
    public var home: Team
    public var away: Team
    /// "Starts 14:00 UTC", "IND need 45 off 30", "India won by 7 wickets".
    public var statusText: String

    public init(matchId: String, startsAt: Int64, status: String, phase: MatchPhase, title: String, subtitle: String, home: Team, away: Team, statusText: String) {
        self.matchId = matchId
        self.startsAt = startsAt
        self.status = status
        self.phase = phase
        self.title = title
        self.subtitle = subtitle
        self.home = home
        self.away = away
        self.statusText = statusText
    }

    /// One side of a card: {"name": "India", "abbr": "IND", "score": "187/6 (20)", "logoUrl": …}.
    public struct Team: Codable, Sendable, Equatable {
        public var name: String
        public var abbr: String
        /// Pre-formatted innings scores, "" before batting ("187/6 (20)" or "245 & 180/4").
        public var score: String
        public var logoUrl: String?

        public init(name: String, abbr: String, score: String, logoUrl: String?) {
            self.name = name
            self.abbr = abbr
            self.score = score
            self.logoUrl = logoUrl
        }
    }
}
