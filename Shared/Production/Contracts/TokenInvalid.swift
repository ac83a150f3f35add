/// APNs said a token is no longer valid (410 Unregistered, 400 BadDeviceToken). Topic
/// `push.token-invalid`, key matchId.
public struct TokenInvalid: VersionedMessage, Equatable {
    public static let currentSchema = 1
    public static let topic = Topic.tokenInvalid

    public var schema: Int
    public var token: String
    public var tokenKind: TokenKind
    public var matchId: String?
    public var userId: String
    public var deviceId: String
    /// The APNs reason, e.g. "Unregistered".
    public var reason: String
    /// For 410: when APNs learned the token was invalid, Unix epoch milliseconds.
    public var apnsTimestamp: Int64?

    public init(token: String, tokenKind: TokenKind, matchId: String?, userId: String, deviceId: String, reason: String, apnsTimestamp: Int64?) {
        self.schema = Self.currentSchema
        self.token = token
        self.tokenKind = tokenKind
        self.matchId = matchId
        self.userId = userId
        self.deviceId = deviceId
        self.reason = reason
        self.apnsTimestamp = apnsTimestamp
    }
}

/// Which of a device's tokens a message is about — or, for `channel`, a broadcast channel APNs no longer
/// knows (ChannelNotRegistered / BadChannelId): `token` is then the channel id and `userId`/`deviceId` are "".
public enum TokenKind: String, Codable, Sendable, CaseIterable {
    case update
    case pushToStart
    case device
    case channel
}
