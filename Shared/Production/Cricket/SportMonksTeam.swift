/// A team (`localteam`, `visitorteam`, `tosswon`, `winnerteam`, `ball.team`; resource "teams").
public struct SportMonksTeam: Sendable, Hashable, Codable {
    public var resource: String?
    public var id: Int
    public var name: String?
    public var code: String?
    public var imagePath: String?
    public var countryId: Int?
    public var nationalTeam: Bool?
    public var updatedAt: String?

    public init(resource: String? = "teams", id: Int, name: String?, code: String?, imagePath: String?,
                countryId: Int?, nationalTeam: Bool?, updatedAt: String?) {
        self.resource = resource; self.id = id; self.name = name; self.code = code; self.imagePath = imagePath
        self.countryId = countryId; self.nationalTeam = nationalTeam; self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case resource, id, name, code
        case imagePath = "image_path"
        case countryId = "country_id"
        case nationalTeam = "national_team"
        case updatedAt = "updated_at"
    }

    /// Writes every key, `null` for absent values, as SportMonks does.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(resource, forKey: .resource)
        try c.encode(id, forKey: .id)
        try c.encode(name, forKey: .name)
        try c.encode(code, forKey: .code)
        try c.encode(imagePath, forKey: .imagePath)
        try c.encode(countryId, forKey: .countryId)
        try c.encode(nationalTeam, forKey: .nationalTeam)
        try c.encode(updatedAt, forKey: .updatedAt)
    }
}
