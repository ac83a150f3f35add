/// The ground (`venue` include; resource "venues").
public struct SportMonksVenue: Sendable, Hashable, Codable {
    public var resource: String?
    public var id: Int
    public var countryId: Int?
    public var name: String?
    public var city: String?
    public var imagePath: String?
    public var capacity: Int?
    public var floodlight: Bool?
    public var updatedAt: String?

    public init(resource: String? = "venues", id: Int, countryId: Int?, name: String?, city: String?,
                imagePath: String?, capacity: Int?, floodlight: Bool?, updatedAt: String?) {
        self.resource = resource; self.id = id; self.countryId = countryId; self.name = name; self.city = city
        self.imagePath = imagePath; self.capacity = capacity; self.floodlight = floodlight; self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case resource, id
        case countryId = "country_id"
        case name, city
        case imagePath = "image_path"
        case capacity, floodlight
        case updatedAt = "updated_at"
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(resource, forKey: .resource)
        try c.encode(id, forKey: .id)
        try c.encode(countryId, forKey: .countryId)
        try c.encode(name, forKey: .name)
        try c.encode(city, forKey: .city)
        try c.encode(imagePath, forKey: .imagePath)
        try c.encode(capacity, forKey: .capacity)
        try c.encode(floodlight, forKey: .floodlight)
        try c.encode(updatedAt, forKey: .updatedAt)
    }
}

/// `localteam_dl_data` / `visitorteam_dl_data`: the Duckworth–Lewis revision (all null when none applies).
public struct SportMonksDLData: Sendable, Hashable, Codable {
    public var score: Int?
    public var overs: Double?
    public var wicketsOut: Int?

    public init(score: Int? = nil, overs: Double? = nil, wicketsOut: Int? = nil) {
        self.score = score; self.overs = overs; self.wicketsOut = wicketsOut
    }

    enum CodingKeys: String, CodingKey {
        case score, overs
        case wicketsOut = "wickets_out"
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(score, forKey: .score)
        try c.encode(overs, forKey: .overs)
        try c.encode(wicketsOut, forKey: .wicketsOut)
    }
}
