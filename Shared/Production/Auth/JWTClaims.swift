/// The claims of a Cognito-style token that the api reads or the dev signer writes.
///
/// Access tokens carry `client_id` and `token_use: "access"`; id tokens carry `aud` and `token_use: "id"`.
public struct JWTClaims: Codable, Sendable, Equatable {
    /// The user id.
    public var sub: String?
    public var iss: String?
    /// Unix seconds.
    public var exp: Int64?
    /// Unix seconds.
    public var nbf: Int64?
    /// Unix seconds.
    public var iat: Int64?
    /// "access" or "id".
    public var tokenUse: String?
    /// Access tokens: the app client id.
    public var clientId: String?
    /// Id tokens: the app client id (a string or, in general JWTs, a list).
    public var aud: [String]?
    /// Cognito user pool groups; "admin" grants the admin routes.
    public var groups: [String]?
    /// Cognito's `username`, informational.
    public var username: String?

    public init(
        sub: String?, iss: String?, exp: Int64?, nbf: Int64? = nil, iat: Int64? = nil, tokenUse: String? = "access",
        clientId: String? = nil, aud: [String]? = nil, groups: [String]? = nil, username: String? = nil
    ) {
        self.sub = sub
        self.iss = iss
        self.exp = exp
        self.nbf = nbf
        self.iat = iat
        self.tokenUse = tokenUse
        self.clientId = clientId
        self.aud = aud
        self.groups = groups
        self.username = username
    }

    enum CodingKeys: String, CodingKey {
        case sub, iss, exp, nbf, iat, aud, username
        case tokenUse = "token_use"
        case clientId = "client_id"
        case groups = "cognito:groups"
    }

    /// Reads claims leniently by type: a claim of the wrong type counts as absent (the verifier then
    /// refuses the token for the claims it requires).
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        sub = try? c.decodeIfPresent(String.self, forKey: .sub)
        iss = try? c.decodeIfPresent(String.self, forKey: .iss)
        exp = try? c.decodeIfPresent(Int64.self, forKey: .exp)
        nbf = try? c.decodeIfPresent(Int64.self, forKey: .nbf)
        iat = try? c.decodeIfPresent(Int64.self, forKey: .iat)
        tokenUse = try? c.decodeIfPresent(String.self, forKey: .tokenUse)
        clientId = try? c.decodeIfPresent(String.self, forKey: .clientId)
        username = try? c.decodeIfPresent(String.self, forKey: .username)
        groups = try? c.decodeIfPresent([String].self, forKey: .groups)
        if let single = try? c.decodeIfPresent(String.self, forKey: .aud) {
            aud = [single]
        } else {
            aud = try? c.decodeIfPresent([String].self, forKey: .aud)
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(sub, forKey: .sub)
        try c.encodeIfPresent(iss, forKey: .iss)
        try c.encodeIfPresent(exp, forKey: .exp)
        try c.encodeIfPresent(nbf, forKey: .nbf)
        try c.encodeIfPresent(iat, forKey: .iat)
        try c.encodeIfPresent(tokenUse, forKey: .tokenUse)
        try c.encodeIfPresent(clientId, forKey: .clientId)
        if let aud { aud.count == 1 ? try c.encode(aud[0], forKey: .aud) : try c.encode(aud, forKey: .aud) }
        try c.encodeIfPresent(groups, forKey: .groups)
        try c.encodeIfPresent(username, forKey: .username)
    }
}

/// The caller a verified token stands for.
public struct AuthenticatedUser: Sendable, Equatable {
    /// The token's `sub`.
    public var userId: String
    /// `cognito:groups`.
    public var groups: [String]
    /// "access" or "id".
    public var tokenUse: String
    /// Unix seconds.
    public var expiresAt: Int64

    public init(userId: String, groups: [String], tokenUse: String, expiresAt: Int64) {
        self.userId = userId
        self.groups = groups
        self.tokenUse = tokenUse
        self.expiresAt = expiresAt
    }

    /// True when `cognito:groups` contains "admin".
    public var isAdmin: Bool { groups.contains("admin") }
}
