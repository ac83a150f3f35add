/// One innings total (`runs` include, resource "runs"). A fresh innings may have no row yet.
public struct SportMonksRun: Sendable, Hashable, Codable {
    public var resource: String?
    public var id: Int
    public var fixtureId: Int?
    /// The batting team.
    public var teamId: Int
    /// Innings number; equals the n of scoreboard "Sn".
    public var inning: Int
    public var score: Int
    public var wickets: Int
    /// SportMonks overs number (20, 1.2, 18.4): completed overs + balls / 10.
    public var overs: Double
    public var pp1: String?
    public var pp2: String?
    public var pp3: String?
    public var updatedAt: String?

    public init(resource: String? = "runs", id: Int, fixtureId: Int?, teamId: Int, inning: Int, score: Int,
                wickets: Int, overs: Double, pp1: String?, pp2: String?, pp3: String?, updatedAt: String?) {
        self.resource = resource; self.id = id; self.fixtureId = fixtureId; self.teamId = teamId; self.inning = inning
        self.score = score; self.wickets = wickets; self.overs = overs; self.pp1 = pp1; self.pp2 = pp2; self.pp3 = pp3
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case resource, id
        case fixtureId = "fixture_id"
        case teamId = "team_id"
        case inning, score, wickets, overs, pp1, pp2, pp3
        case updatedAt = "updated_at"
    }

    /// The innings label "S<inning>" used by balls, batting and bowling.
    public var scoreboard: String { "S\(inning)" }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(resource, forKey: .resource)
        try c.encode(id, forKey: .id)
        try c.encode(fixtureId, forKey: .fixtureId)
        try c.encode(teamId, forKey: .teamId)
        try c.encode(inning, forKey: .inning)
        try c.encode(score, forKey: .score)
        try c.encode(wickets, forKey: .wickets)
        try c.encode(overs, forKey: .overs)
        try c.encode(pp1, forKey: .pp1)
        try c.encode(pp2, forKey: .pp2)
        try c.encode(pp3, forKey: .pp3)
        try c.encode(updatedAt, forKey: .updatedAt)
    }
}
