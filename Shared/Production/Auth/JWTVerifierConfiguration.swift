/// What a token must say to be accepted (the Cognito user pool and app client).
public struct JWTVerifierConfiguration: Sendable, Equatable {
    /// Exact `iss`, e.g. `https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbC`.
    public var issuer: String
    /// The app client id: `client_id` of access tokens, `aud` of id tokens.
    public var clientId: String
    /// Accepted `token_use` values; Cognito access tokens by default.
    public var acceptedTokenUses: Set<String>
    /// Clock skew allowed on `exp` and `nbf`, in seconds.
    public var leewaySeconds: Int64
    /// Longer tokens are refused before any parsing.
    public var maximumTokenBytes: Int
    /// A token whose `exp` lies further ahead than this (plus the leeway) is refused: no issuer this api
    /// trusts mints one (Cognito's longest is a day), so it is a forged or broken clock's token.
    public var maximumLifetimeSeconds: Int64

    /// The issuer the api expects when AUTH_ISSUER is unset: the dev user pool (tokens of the dev key pair).
    public static let defaultIssuer = "https://sightscreen.local/dev-user-pool"
    /// The client id the api expects when AUTH_CLIENT_ID is unset.
    public static let defaultClientId = "sightscreen-ios-dev"

    public init(
        issuer: String, clientId: String, acceptedTokenUses: Set<String> = ["access"], leewaySeconds: Int64 = 30,
        maximumTokenBytes: Int = 8192, maximumLifetimeSeconds: Int64 = 86_400
    ) {
        self.issuer = issuer
        self.clientId = clientId
        self.acceptedTokenUses = acceptedTokenUses
        self.leewaySeconds = leewaySeconds
        self.maximumTokenBytes = maximumTokenBytes
        self.maximumLifetimeSeconds = maximumLifetimeSeconds
    }
}
