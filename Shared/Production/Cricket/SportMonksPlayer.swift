/// A player (`lineup[]`, `ball.batsman`, `ball.bowler`, …; resource "players").
/// Inside `lineup` the object also carries the `lineup` pivot.
public struct SportMonksPlayer: Sendable, Hashable, Codable {
    /// The playing role (`{"resource":"positions","id":1,"name":"Batsman"}`).
    public struct Position: Sendable, Hashable, Codable {
        public var resource: String?
        public var id: Int
        public var name: String?
        public init(resource: String? = "positions", id: Int, name: String?) {
            self.resource = resource; self.id = id; self.name = name
        }
        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(resource, forKey: .resource)
            try c.encode(id, forKey: .id)
            try c.encode(name, forKey: .name)
        }
        enum CodingKeys: String, CodingKey { case resource, id, name }
    }

    /// The lineup pivot: which side, captain / keeper flags, `substitution` = not in the playing XI.
    public struct LineupPivot: Sendable, Hashable, Codable {
        public var teamId: Int
        public var captain: Bool?
        public var wicketkeeper: Bool?
        public var substitution: Bool?
        public init(teamId: Int, captain: Bool?, wicketkeeper: Bool?, substitution: Bool?) {
            self.teamId = teamId; self.captain = captain; self.wicketkeeper = wicketkeeper; self.substitution = substitution
        }
        enum CodingKeys: String, CodingKey {
            case teamId = "team_id"
            case captain, wicketkeeper, substitution
        }
        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(teamId, forKey: .teamId)
            try c.encode(captain, forKey: .captain)
            try c.encode(wicketkeeper, forKey: .wicketkeeper)
            try c.encode(substitution, forKey: .substitution)
        }
    }

    public var resource: String?
    public var id: Int
    public var countryId: Int?
    public var firstname: String?
    public var lastname: String?
    public var fullname: String?
    public var imagePath: String?
    public var dateofbirth: String?
    public var gender: String?
    public var battingstyle: String?
    public var bowlingstyle: String?
    public var position: Position?
    public var updatedAt: String?
    /// Present only inside the `lineup` include.
    public var lineup: LineupPivot?

    public init(resource: String? = "players", id: Int, countryId: Int?, firstname: String?, lastname: String?,
                fullname: String?, imagePath: String?, dateofbirth: String?, gender: String?, battingstyle: String?,
                bowlingstyle: String?, position: Position?, updatedAt: String?, lineup: LineupPivot? = nil) {
        self.resource = resource; self.id = id; self.countryId = countryId; self.firstname = firstname
        self.lastname = lastname; self.fullname = fullname; self.imagePath = imagePath; self.dateofbirth = dateofbirth
        self.gender = gender; self.battingstyle = battingstyle; self.bowlingstyle = bowlingstyle
        self.position = position; self.updatedAt = updatedAt; self.lineup = lineup
    }

    enum CodingKeys: String, CodingKey {
        case resource, id
        case countryId = "country_id"
        case firstname, lastname, fullname
        case imagePath = "image_path"
        case dateofbirth, gender, battingstyle, bowlingstyle, position
        case updatedAt = "updated_at"
        case lineup
    }

    /// Writes every key (`null` for absent values); `lineup` only when present.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(resource, forKey: .resource)
        try c.encode(id, forKey: .id)
        try c.encode(countryId, forKey: .countryId)
        try c.encode(firstname, forKey: .firstname)
        try c.encode(lastname, forKey: .lastname)
        try c.encode(fullname, forKey: .fullname)
        try c.encode(imagePath, forKey: .imagePath)
        try c.encode(dateofbirth, forKey: .dateofbirth)
        try c.encode(gender, forKey: .gender)
        try c.encode(battingstyle, forKey: .battingstyle)
        try c.encode(bowlingstyle, forKey: .bowlingstyle)
        try c.encode(position, forKey: .position)
        try c.encode(updatedAt, forKey: .updatedAt)
        try c.encodeIfPresent(lineup, forKey: .lineup)
    }
}
