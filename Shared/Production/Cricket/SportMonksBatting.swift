/// One batter in one innings (`batting` include, resource "battings").
/// `score` = runs, `ball` = balls faced, `rate` = strike rate; `fow_score`/`fow_balls` are 0 when not out.
/// `active` is false on every real row, even for batters at the crease: do not rely on it.
public struct SportMonksBatting: Sendable, Hashable, Codable {
    public var resource: String?
    public var id: Int
    /// Batting position within the scoreboard.
    public var sort: Int?
    public var fixtureId: Int?
    /// The batting team.
    public var teamId: Int
    public var active: Bool?
    public var scoreboard: String
    public var playerId: Int
    /// Dismissal kind from the score dictionary (same value as `score_id`); 84 = not out.
    public var wicketId: Int?
    public var ball: Int
    public var scoreId: Int?
    public var score: Int
    public var fourX: Int?
    public var sixX: Int?
    public var catchStumpPlayerId: Int?
    public var runoutById: Int?
    public var batsmanoutId: Int?
    public var bowlingPlayerId: Int?
    public var fowScore: Int?
    public var fowBalls: Double?
    public var rate: Double?
    public var updatedAt: String?

    public init(resource: String? = "battings", id: Int, sort: Int?, fixtureId: Int?, teamId: Int, active: Bool?,
                scoreboard: String, playerId: Int, wicketId: Int?, ball: Int, scoreId: Int?, score: Int, fourX: Int?,
                sixX: Int?, catchStumpPlayerId: Int?, runoutById: Int?, batsmanoutId: Int?, bowlingPlayerId: Int?,
                fowScore: Int?, fowBalls: Double?, rate: Double?, updatedAt: String?) {
        self.resource = resource; self.id = id; self.sort = sort; self.fixtureId = fixtureId; self.teamId = teamId
        self.active = active; self.scoreboard = scoreboard; self.playerId = playerId; self.wicketId = wicketId
        self.ball = ball; self.scoreId = scoreId; self.score = score; self.fourX = fourX; self.sixX = sixX
        self.catchStumpPlayerId = catchStumpPlayerId; self.runoutById = runoutById; self.batsmanoutId = batsmanoutId
        self.bowlingPlayerId = bowlingPlayerId; self.fowScore = fowScore; self.fowBalls = fowBalls; self.rate = rate
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case resource, id, sort
        case fixtureId = "fixture_id"
        case teamId = "team_id"
        case active, scoreboard
        case playerId = "player_id"
        case wicketId = "wicket_id"
        case ball
        case scoreId = "score_id"
        case score
        case fourX = "four_x"
        case sixX = "six_x"
        case catchStumpPlayerId = "catch_stump_player_id"
        case runoutById = "runout_by_id"
        case batsmanoutId = "batsmanout_id"
        case bowlingPlayerId = "bowling_player_id"
        case fowScore = "fow_score"
        case fowBalls = "fow_balls"
        case rate
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
        try c.encode(wicketId, forKey: .wicketId)
        try c.encode(ball, forKey: .ball)
        try c.encode(scoreId, forKey: .scoreId)
        try c.encode(score, forKey: .score)
        try c.encode(fourX, forKey: .fourX)
        try c.encode(sixX, forKey: .sixX)
        try c.encode(catchStumpPlayerId, forKey: .catchStumpPlayerId)
        try c.encode(runoutById, forKey: .runoutById)
        try c.encode(batsmanoutId, forKey: .batsmanoutId)
        try c.encode(bowlingPlayerId, forKey: .bowlingPlayerId)
        try c.encode(fowScore, forKey: .fowScore)
        try c.encode(fowBalls, forKey: .fowBalls)
        try c.encode(rate, forKey: .rate)
        try c.encode(updatedAt, forKey: .updatedAt)
    }
}
