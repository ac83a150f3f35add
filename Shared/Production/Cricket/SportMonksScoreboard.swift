/// One scoreboard row (`scoreboards` include, resource "scoreboards"): two rows per innings,
/// `type` "extra" (extras breakdown) and `type` "total" (total, overs, wickets).
/// Keys from typed consumer models; no real reply with scoreboards was recorded.
public struct SportMonksScoreboard: Sendable, Hashable, Codable {
    public var resource: String?
    public var id: Int
    public var fixtureId: Int?
    /// The batting team.
    public var teamId: Int
    /// "extra" or "total".
    public var type: String
    public var scoreboard: String
    public var wide: Int?
    public var noballRuns: Int?
    public var noballBalls: Int?
    public var bye: Int?
    public var legBye: Int?
    public var penalty: Int?
    public var total: Int?
    public var overs: Double?
    public var wickets: Int?
    public var updatedAt: String?

    public init(resource: String? = "scoreboards", id: Int, fixtureId: Int?, teamId: Int, type: String,
                scoreboard: String, wide: Int?, noballRuns: Int?, noballBalls: Int?, bye: Int?, legBye: Int?,
                penalty: Int?, total: Int?, overs: Double?, wickets: Int?, updatedAt: String?) {
        self.resource = resource; self.id = id; self.fixtureId = fixtureId; self.teamId = teamId; self.type = type
        self.scoreboard = scoreboard; self.wide = wide; self.noballRuns = noballRuns; self.noballBalls = noballBalls
        self.bye = bye; self.legBye = legBye; self.penalty = penalty; self.total = total; self.overs = overs
        self.wickets = wickets; self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case resource, id
        case fixtureId = "fixture_id"
        case teamId = "team_id"
        case type, scoreboard, wide
        case noballRuns = "noball_runs"
        case noballBalls = "noball_balls"
        case bye
        case legBye = "leg_bye"
        case penalty, total, overs, wickets
        case updatedAt = "updated_at"
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(resource, forKey: .resource)
        try c.encode(id, forKey: .id)
        try c.encode(fixtureId, forKey: .fixtureId)
        try c.encode(teamId, forKey: .teamId)
        try c.encode(type, forKey: .type)
        try c.encode(scoreboard, forKey: .scoreboard)
        try c.encode(wide, forKey: .wide)
        try c.encode(noballRuns, forKey: .noballRuns)
        try c.encode(noballBalls, forKey: .noballBalls)
        try c.encode(bye, forKey: .bye)
        try c.encode(legBye, forKey: .legBye)
        try c.encode(penalty, forKey: .penalty)
        try c.encode(total, forKey: .total)
        try c.encode(overs, forKey: .overs)
        try c.encode(wickets, forKey: .wickets)
        try c.encode(updatedAt, forKey: .updatedAt)
    }
}
