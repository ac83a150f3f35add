/// One innings; `superOver` marks a super over, `target` a (possibly D/L revised) target.
public struct CricsheetInnings: Sendable, Hashable, Codable {
    /// `target`: runs to win and the overs available (11.2 = 11 overs and 2 balls).
    public struct Target: Sendable, Hashable, Codable {
        public var runs: Int?
        public var overs: Double?
    }

    /// `penalty_runs`: penalties awarded before the first or after the last delivery.
    public struct PenaltyRuns: Sendable, Hashable, Codable {
        public var pre: Int?
        public var post: Int?
    }

    /// `powerplays[]`: `from`/`to` are over.ball numbers (0.1 … 5.6).
    public struct Powerplay: Sendable, Hashable, Codable {
        public var from: Double
        public var to: Double
        public var type: String?
    }

    /// The batting team.
    public var team: String
    public var overs: [CricsheetOver]
    public var superOver: Bool
    public var declared: Bool
    public var forfeited: Bool
    public var target: Target?
    public var penaltyRuns: PenaltyRuns?
    public var absentHurt: [String]
    public var powerplays: [Powerplay]

    enum CodingKeys: String, CodingKey {
        case team, overs
        case superOver = "super_over"
        case declared, forfeited, target
        case penaltyRuns = "penalty_runs"
        case absentHurt = "absent_hurt"
        case powerplays
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        team = try c.decode(String.self, forKey: .team)
        overs = try c.decodeIfPresent([CricsheetOver].self, forKey: .overs) ?? []
        superOver = try c.decodeIfPresent(Bool.self, forKey: .superOver) ?? false
        declared = try c.decodeIfPresent(Bool.self, forKey: .declared) ?? false
        forfeited = try c.decodeIfPresent(Bool.self, forKey: .forfeited) ?? false
        target = try c.decodeIfPresent(Target.self, forKey: .target)
        penaltyRuns = try c.decodeIfPresent(PenaltyRuns.self, forKey: .penaltyRuns)
        absentHurt = try c.decodeIfPresent([String].self, forKey: .absentHurt) ?? []
        powerplays = try c.decodeIfPresent([Powerplay].self, forKey: .powerplays) ?? []
    }

    /// Deliveries in this innings.
    public var deliveryCount: Int { overs.reduce(0) { $0 + $1.deliveries.count } }
}

/// One over: `over` is 0-based.
public struct CricsheetOver: Sendable, Hashable, Codable {
    public var over: Int
    public var deliveries: [CricsheetDelivery]
}

/// One delivery as bowled (legal or not).
public struct CricsheetDelivery: Sendable, Hashable, Codable {
    /// `runs`: `total = batter + extras`; `non_boundary` marks a four/six that was run.
    public struct Runs: Sendable, Hashable, Codable {
        public var batter: Int
        public var extras: Int
        public var total: Int
        public var nonBoundary: Bool?
        enum CodingKeys: String, CodingKey {
            case batter, extras, total
            case nonBoundary = "non_boundary"
        }
    }

    /// `extras` by type (runs).
    public struct Extras: Sendable, Hashable, Codable {
        public var wides: Int?
        public var noballs: Int?
        public var byes: Int?
        public var legbyes: Int?
        public var penalty: Int?
    }

    /// A fielder involved in a dismissal.
    public struct Fielder: Sendable, Hashable, Codable {
        public var name: String?
        public var substitute: Bool?
    }

    /// A dismissal (or retirement) on this delivery.
    public struct Wicket: Sendable, Hashable, Codable {
        /// "bowled", "caught", "caught and bowled", "lbw", "stumped", "run out", "hit wicket",
        /// "retired hurt", "retired not out", "retired out", "obstructing the field", …
        public var kind: String
        public var playerOut: String
        public var fielders: [Fielder]?
        enum CodingKeys: String, CodingKey {
            case kind
            case playerOut = "player_out"
            case fielders
        }
    }

    public var batter: String
    public var bowler: String
    public var nonStriker: String
    public var runs: Runs
    public var extras: Extras?
    public var wickets: [Wicket]?

    enum CodingKeys: String, CodingKey {
        case batter, bowler
        case nonStriker = "non_striker"
        case runs, extras, wickets
    }

    /// Wide runs (0 when not a wide).
    public var wides: Int { extras?.wides ?? 0 }
    /// No-ball extra runs (0 when not a no-ball).
    public var noballs: Int { extras?.noballs ?? 0 }
    /// True when the delivery advances the over (neither wide nor no-ball).
    public var isLegal: Bool { wides == 0 && noballs == 0 }
}
