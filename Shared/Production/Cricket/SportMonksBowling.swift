/// One bowler in one innings (`bowling` include, resource "bowlings"). `team_id` is the BOWLING side.
/// `medians` = maidens (sic), `rate` = economy, `wide` = wide runs, `noball` = no-balls bowled.
public struct SportMonksBowling: Sendable, Hashable, Codable {
    public var resource: String?
    public var id: Int
    public var sort: Int?
    public var fixtureId: Int?
    public var teamId: Int
    public var active: Bool?
    public var scoreboard: String
    public var playerId: Int
    /// SportMonks overs number (3.4 = three overs and four balls).
    public var overs: Double
    public var medians: Int?
    public var runs: Int
    public var wickets: Int
    public var wide: Int?
    public var noball: Int?
    public var rate: Double?
    public var updatedAt: String?

    public init(resource: String? = "bowlings", id: Int, sort: Int?, fixtureId: Int?, teamId: Int, active: Bool?,
                scoreboard: String, playerId: Int, overs: Double, medians: Int?, runs: Int, wickets: Int, wide: Int?,
                noball: Int?, rate: Double?, updatedAt: String?) {
        self.resource = resource; self.id = id; self.sort = sort; self.fixtureId = fixtureId; self.teamId = teamId
        self.active = active; self.scoreboard = scoreboard; self.playerId = playerId; self.overs = overs
        self.medians = medians; self.runs = runs; self.wickets = wickets; self.wide = wide; self.noball = noball
        self.rate = rate; self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case resource, id, sort
        case fixtureId = "fixture_id"
        case teamId = "team_id"
        case active, scoreboard
        case playerId = "player_id"
        case overs, medians, runs, wickets, wide, noball, rate
        case updatedAt = "updated_at"
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(resource, forKey: .resource)
        try c.encode(id, forKey: .id)
        try c.encode(sort, forKey: .sort)
        try c.encode(fixtureId, forKey: .fixtureId)
        try c.encode(teamId, forKey: .teamId)
        try c.encode(active, forKey: .active)
        try c.encode(scoreboard, forKey: .scoreboard)
        try c.encode(playerId, forKey: .playerId)
        try c.encode(overs, forKey: .overs)
        try c.encode(medians, forKey: .medians)
        try c.encode(runs, forKey: .runs)
        try c.encode(wickets, forKey: .wickets)
        try c.encode(wide, forKey: .wide)
        try c.encode(noball, forKey: .noball)
        try c.encode(rate, forKey: .rate)
        try c.encode(updatedAt, forKey: .updatedAt)
    }
}
