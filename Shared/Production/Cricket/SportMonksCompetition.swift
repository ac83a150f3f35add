/// The competition (`league` include; resource "leagues").
public struct SportMonksLeague: Sendable, Hashable, Codable {
    public var resource: String?
    public var id: Int
    public var seasonId: Int?
    public var countryId: Int?
    public var name: String?
    public var code: String?
    public var imagePath: String?
    public var type: String?
    public var updatedAt: String?

    public init(resource: String? = "leagues", id: Int, seasonId: Int?, countryId: Int?, name: String?, code: String?,
                imagePath: String?, type: String?, updatedAt: String?) {
        self.resource = resource; self.id = id; self.seasonId = seasonId; self.countryId = countryId; self.name = name
        self.code = code; self.imagePath = imagePath; self.type = type; self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case resource, id
        case seasonId = "season_id"
        case countryId = "country_id"
        case name, code
        case imagePath = "image_path"
        case type
        case updatedAt = "updated_at"
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(resource, forKey: .resource)
        try c.encode(id, forKey: .id)
        try c.encode(seasonId, forKey: .seasonId)
        try c.encode(countryId, forKey: .countryId)
        try c.encode(name, forKey: .name)
        try c.encode(code, forKey: .code)
        try c.encode(imagePath, forKey: .imagePath)
        try c.encode(type, forKey: .type)
        try c.encode(updatedAt, forKey: .updatedAt)
    }
}

/// The season (`season` include; resource "seasons").
public struct SportMonksSeason: Sendable, Hashable, Codable {
    public var resource: String?
    public var id: Int
    public var leagueId: Int?
    public var name: String?
    public var code: String?
    public var updatedAt: String?

    public init(resource: String? = "seasons", id: Int, leagueId: Int?, name: String?, code: String?, updatedAt: String?) {
        self.resource = resource; self.id = id; self.leagueId = leagueId; self.name = name; self.code = code
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case resource, id
        case leagueId = "league_id"
        case name, code
        case updatedAt = "updated_at"
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(resource, forKey: .resource)
        try c.encode(id, forKey: .id)
        try c.encode(leagueId, forKey: .leagueId)
        try c.encode(name, forKey: .name)
        try c.encode(code, forKey: .code)
        try c.encode(updatedAt, forKey: .updatedAt)
    }
}

/// The stage, e.g. a tour or a tournament phase (`stage` include; resource "stages").
public struct SportMonksStage: Sendable, Hashable, Codable {
    public var resource: String?
    public var id: Int
    public var leagueId: Int?
    public var seasonId: Int?
    public var name: String?
    public var code: String?
    public var type: String?
    public var standings: Bool?
    public var updatedAt: String?

    public init(resource: String? = "stages", id: Int, leagueId: Int?, seasonId: Int?, name: String?, code: String?,
                type: String?, standings: Bool?, updatedAt: String?) {
        self.resource = resource; self.id = id; self.leagueId = leagueId; self.seasonId = seasonId; self.name = name
        self.code = code; self.type = type; self.standings = standings; self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case resource, id
        case leagueId = "league_id"
        case seasonId = "season_id"
        case name, code, type, standings
        case updatedAt = "updated_at"
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(resource, forKey: .resource)
        try c.encode(id, forKey: .id)
        try c.encode(leagueId, forKey: .leagueId)
        try c.encode(seasonId, forKey: .seasonId)
        try c.encode(name, forKey: .name)
        try c.encode(code, forKey: .code)
        try c.encode(type, forKey: .type)
        try c.encode(standings, forKey: .standings)
        try c.encode(updatedAt, forKey: .updatedAt)
    }
}
