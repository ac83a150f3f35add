/// Everything a Live Activity and the app show for one match, pre-formatted: built once per
/// match by the detector, sent identically to every follower (seeds: "Content state contract").
/// The iOS app decodes it with default `Codable` settings (camelCase keys) and renders it as is.
public struct UnifiedDisplayState: Codable, Sendable, Equatable {
    public var matchId: String
    /// upcoming, live, inningsBreak, interrupted or ended.
    public var matchDisplayState: MatchPhase
    /// e.g. "India vs Australia".
    public var title: String
    /// e.g. "2nd T20I · Wankhede Stadium".
    public var subtitle: String
    /// One line on the state of play: "IND need 45 off 30", "Innings break", "Rain stopped play", the result.
    public var statusText: String
    public var compactLeading: CompactLeading
    public var compactTrailing: CompactTrailing
    public var minimal: Minimal
    public var expanded: Expanded
    public var lockScreen: LockScreen
    /// The result ("India won by 7 wickets"), once known.
    public var resultLine: String?
    /// Unix epoch seconds of the data this state shows.
    public var updatedAt: Int64

    public init(
        matchId: String, matchDisplayState: MatchPhase, title: String, subtitle: String, statusText: String,
        compactLeading: CompactLeading, compactTrailing: CompactTrailing, minimal: Minimal, expanded: Expanded,
        lockScreen: LockScreen, resultLine: String?, updatedAt: Int64
    ) {
        self.matchId = matchId
        self.matchDisplayState = matchDisplayState
        self.title = title
        self.subtitle = subtitle
        self.statusText = statusText
        self.compactLeading = compactLeading
        self.compactTrailing = compactTrailing
        self.minimal = minimal
        self.expanded = expanded
        self.lockScreen = lockScreen
        self.resultLine = resultLine
        self.updatedAt = updatedAt
    }

    /// Dynamic Island, left of the cutout: {"teamAbbr": "MI", "score": "87/6"}.
    public struct CompactLeading: Codable, Sendable, Equatable {
        public var teamAbbr: String
        public var score: String
        public init(teamAbbr: String, score: String) {
            self.teamAbbr = teamAbbr
            self.score = score
        }
    }

    /// Dynamic Island, right of the cutout: {"overs": "12.3", "runRate": "6.96"}.
    public struct CompactTrailing: Codable, Sendable, Equatable {
        public var overs: String
        public var runRate: String
        public init(overs: String, runRate: String) {
            self.overs = overs
            self.runRate = runRate
        }
    }

    /// The small circular view: a very short text such as "87/6".
    public struct Minimal: Codable, Sendable, Equatable {
        public var text: String
        public init(text: String) { self.text = text }
    }

    /// A team's score line: {"abbr": "IND", "name": "India", "score": "87/6", "overs": "12.3"}.
    public struct TeamScore: Codable, Sendable, Equatable {
        public var abbr: String
        public var name: String
        /// "87/6", "82" (all out), "89/7d" (declared), "" before batting.
        public var score: String
        /// "12.3", "" before batting.
        public var overs: String
        public init(abbr: String, name: String, score: String, overs: String) {
            self.abbr = abbr
            self.name = name
            self.score = score
            self.overs = overs
        }
    }

    /// A batter at the crease: {"name": "Rohit Sharma", "score": "45 (32)", "onStrike": true}.
    public struct BatterLine: Codable, Sendable, Equatable {
        public var name: String
        public var score: String
        public var onStrike: Bool
        public init(name: String, score: String, onStrike: Bool) {
            self.name = name
            self.score = score
            self.onStrike = onStrike
        }
    }

    /// The current bowler: {"name": "Jasprit Bumrah", "figures": "2-24 (3.4)"}.
    public struct BowlerLine: Codable, Sendable, Equatable {
        public var name: String
        public var figures: String
        public init(name: String, figures: String) {
            self.name = name
            self.figures = figures
        }
    }

    /// The long-press Dynamic Island view.
    public struct Expanded: Codable, Sendable, Equatable {
        public var batting: TeamScore
        public var bowling: TeamScore
        public var batters: [BatterLine]
        public var bowler: BowlerLine?
        /// The last six balls, oldest first: "1", "4", "W", "•", "1wd", "6".
        public var lastBalls: [String]
        /// "Target 181", nil in a first innings.
        public var target: String?
        /// "Need 45 off 30", nil when there is no chase.
        public var equation: String?
        /// "RR 6.96".
        public var runRate: String
        /// "RRR 9.00", nil when there is no chase.
        public var requiredRate: String?

        public init(
            batting: TeamScore, bowling: TeamScore, batters: [BatterLine], bowler: BowlerLine?, lastBalls: [String],
            target: String?, equation: String?, runRate: String, requiredRate: String?
        ) {
            self.batting = batting
            self.bowling = bowling
            self.batters = batters
            self.bowler = bowler
            self.lastBalls = lastBalls
            self.target = target
            self.equation = equation
            self.runRate = runRate
            self.requiredRate = requiredRate
        }
    }

    /// The Lock Screen banner (also used for Watch/CarPlay `.small`).
    public struct LockScreen: Codable, Sendable, Equatable {
        /// "IND 87/6 (12.3)".
        public var headline: String
        /// "AUS 180/7 (20)" or the batters' line.
        public var detail: String
        /// statusText again, or the last event ("WICKET! Rohit Sharma c Kohli b Bumrah 45 (32)").
        public var footer: String
        public init(headline: String, detail: String, footer: String) {
            self.headline = headline
            self.detail = detail
            self.footer = footer
        }
    }
}
