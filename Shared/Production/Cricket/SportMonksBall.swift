/// One delivery (`balls` include, resource "balls"). Identity is `id`; order is ascending `id`.
/// `ball` (e.g. 0.2) is not unique: wides and no-balls carry the number of the next legal delivery.
public struct SportMonksBall: Sendable, Hashable, Codable {
    public var resource: String?
    public var id: Int
    public var fixtureId: Int
    /// The batting team.
    public var teamId: Int
    /// over.ball, 0-based overs, balls .1–.6 (convert with `SportMonksOvers`, never with float math).
    public var ball: Double
    /// Innings label "S1", "S2", …
    public var scoreboard: String
    public var batsmanOneOnCreezeId: Int?
    public var batsmanTwoOnCreezeId: Int?
    /// The striker who faced this delivery.
    public var batsmanId: Int
    public var bowlerId: Int
    /// Dismissed batter; can be wrong in real data (cross-check with the on-crease ids).
    public var batsmanoutId: Int?
    public var catchstumpId: Int?
    public var runoutById: Int?
    public var scoreId: Int
    public var batsman: SportMonksPlayer?
    public var bowler: SportMonksPlayer?
    /// The outcome; required because every detector decision reads it (include `balls.score`).
    public var score: SportMonksScore
    public var team: SportMonksTeam?
    public var updatedAt: String?

    public init(resource: String? = "balls", id: Int, fixtureId: Int, teamId: Int, ball: Double, scoreboard: String,
                batsmanOneOnCreezeId: Int?, batsmanTwoOnCreezeId: Int?, batsmanId: Int, bowlerId: Int,
                batsmanoutId: Int?, catchstumpId: Int?, runoutById: Int?, scoreId: Int,
                batsman: SportMonksPlayer?, bowler: SportMonksPlayer?, score: SportMonksScore,
                team: SportMonksTeam?, updatedAt: String?) {
        self.resource = resource; self.id = id; self.fixtureId = fixtureId; self.teamId = teamId; self.ball = ball
        self.scoreboard = scoreboard; self.batsmanOneOnCreezeId = batsmanOneOnCreezeId
        self.batsmanTwoOnCreezeId = batsmanTwoOnCreezeId; self.batsmanId = batsmanId; self.bowlerId = bowlerId
        self.batsmanoutId = batsmanoutId; self.catchstumpId = catchstumpId; self.runoutById = runoutById
        self.scoreId = scoreId; self.batsman = batsman; self.bowler = bowler; self.score = score; self.team = team
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case resource, id
        case fixtureId = "fixture_id"
        case teamId = "team_id"
        case ball, scoreboard
        case batsmanOneOnCreezeId = "batsman_one_on_creeze_id"
        case batsmanTwoOnCreezeId = "batsman_two_on_creeze_id"
        case batsmanId = "batsman_id"
        case bowlerId = "bowler_id"
        case batsmanoutId = "batsmanout_id"
        case catchstumpId = "catchstump_id"
        case runoutById = "runout_by_id"
        case scoreId = "score_id"
        case batsman, bowler, score, team
        case updatedAt = "updated_at"
    }

    /// Writes every key (`null` for absent ids); nested `batsman`/`bowler`/`team` only when present.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(resource, forKey: .resource)
        try c.encode(id, forKey: .id)
        try c.encode(fixtureId, forKey: .fixtureId)
        try c.encode(teamId, forKey: .teamId)
        try c.encode(ball, forKey: .ball)
        try c.encode(scoreboard, forKey: .scoreboard)
        try c.encode(batsmanOneOnCreezeId, forKey: .batsmanOneOnCreezeId)
        try c.encode(batsmanTwoOnCreezeId, forKey: .batsmanTwoOnCreezeId)
        try c.encode(batsmanId, forKey: .batsmanId)
        try c.encode(bowlerId, forKey: .bowlerId)
        try c.encode(batsmanoutId, forKey: .batsmanoutId)
        try c.encode(catchstumpId, forKey: .catchstumpId)
        try c.encode(runoutById, forKey: .runoutById)
        try c.encode(scoreId, forKey: .scoreId)
        try c.encodeIfPresent(batsman, forKey: .batsman)
        try c.encodeIfPresent(bowler, forKey: .bowler)
        try c.encode(score, forKey: .score)
        try c.encodeIfPresent(team, forKey: .team)
        try c.encode(updatedAt, forKey: .updatedAt)
    }
}
