/// `info`: who, where, when and the result of a Cricsheet match.
public struct CricsheetInfo: Sendable, Hashable, Codable {
    public var ballsPerOver: Int?
    public var city: String?
    /// Playing days, "YYYY-MM-DD".
    public var dates: [String]
    public var event: CricsheetEvent?
    public var gender: String?
    /// "T20", "ODI", "Test", "IT20", "MDM", "ODM".
    public var matchType: String
    public var matchTypeNumber: Int?
    public var officials: CricsheetOfficials?
    public var outcome: CricsheetOutcome
    /// Scheduled overs per side (absent for Tests).
    public var overs: Int?
    public var playerOfMatch: [String]?
    /// Team name → playing XI (plus substitutes in newer files).
    public var players: [String: [String]]
    public var registry: CricsheetRegistry?
    /// "2019", "2019/20" (older files may carry a number).
    public var season: String
    /// "international" or "club".
    public var teamType: String?
    /// The two teams; the first is used as SportMonks' local team.
    public var teams: [String]
    public var toss: CricsheetToss?
    public var venue: String?

    enum CodingKeys: String, CodingKey {
        case ballsPerOver = "balls_per_over"
        case city, dates, event, gender
        case matchType = "match_type"
        case matchTypeNumber = "match_type_number"
        case officials, outcome, overs
        case playerOfMatch = "player_of_match"
        case players, registry, season
        case teamType = "team_type"
        case teams, toss, venue
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        ballsPerOver = try c.decodeIfPresent(Int.self, forKey: .ballsPerOver)
        city = try c.decodeIfPresent(String.self, forKey: .city)
        dates = try c.decode([String].self, forKey: .dates)
        event = try c.decodeIfPresent(CricsheetEvent.self, forKey: .event)
        gender = try c.decodeIfPresent(String.self, forKey: .gender)
        matchType = try c.decode(String.self, forKey: .matchType)
        matchTypeNumber = try c.decodeIfPresent(Int.self, forKey: .matchTypeNumber)
        officials = try c.decodeIfPresent(CricsheetOfficials.self, forKey: .officials)
        outcome = try c.decode(CricsheetOutcome.self, forKey: .outcome)
        overs = try c.decodeIfPresent(Int.self, forKey: .overs)
        playerOfMatch = try c.decodeIfPresent([String].self, forKey: .playerOfMatch)
        players = try c.decodeIfPresent([String: [String]].self, forKey: .players) ?? [:]
        registry = try c.decodeIfPresent(CricsheetRegistry.self, forKey: .registry)
        if let text = try? c.decode(String.self, forKey: .season) {
            season = text
        } else {
            season = String(try c.decode(Int.self, forKey: .season))
        }
        teamType = try c.decodeIfPresent(String.self, forKey: .teamType)
        teams = try c.decode([String].self, forKey: .teams)
        toss = try c.decodeIfPresent(CricsheetToss.self, forKey: .toss)
        venue = try c.decodeIfPresent(String.self, forKey: .venue)
    }
}

/// `info.event`: competition name and match number or stage ("Final").
public struct CricsheetEvent: Sendable, Hashable, Codable {
    public var name: String
    public var matchNumber: Int?
    public var stage: String?
    public var group: String?

    enum CodingKeys: String, CodingKey {
        case name
        case matchNumber = "match_number"
        case stage, group
    }
}

/// `info.officials`.
public struct CricsheetOfficials: Sendable, Hashable, Codable {
    public var matchReferees: [String]?
    public var reserveUmpires: [String]?
    public var tvUmpires: [String]?
    public var umpires: [String]?

    enum CodingKeys: String, CodingKey {
        case matchReferees = "match_referees"
        case reserveUmpires = "reserve_umpires"
        case tvUmpires = "tv_umpires"
        case umpires
    }
}

/// `info.registry.people`: person name → 8-hex-digit Cricsheet registry id.
public struct CricsheetRegistry: Sendable, Hashable, Codable {
    public var people: [String: String]
}

/// `info.toss`: winner and decision ("bat" / "field").
public struct CricsheetToss: Sendable, Hashable, Codable {
    public var decision: String
    public var winner: String
}

/// `info.outcome`: a winner with a margin, or a `result` (tie, draw, no result) with an optional
/// super-over `eliminator` or `bowl_out` winner; `method` "D/L" for rain-revised results.
public struct CricsheetOutcome: Sendable, Hashable, Codable {
    /// Margin: by runs, by wickets, and/or by an innings.
    public struct Margin: Sendable, Hashable, Codable {
        public var runs: Int?
        public var wickets: Int?
        public var innings: Int?
    }

    public var winner: String?
    public var by: Margin?
    public var method: String?
    /// "tie", "draw", "no result".
    public var result: String?
    public var eliminator: String?
    public var bowlOut: String?

    enum CodingKeys: String, CodingKey {
        case winner, by, method, result, eliminator
        case bowlOut = "bowl_out"
    }

    /// True when the match ended without a result (no result or abandoned).
    public var isNoResult: Bool { result == "no result" || result == "abandoned" }
    /// The team that took the match: the winner, the super-over eliminator or the bowl-out winner.
    public var effectiveWinner: String? { winner ?? eliminator ?? bowlOut }
}
