/// What the audience did, as the match-day driver logs it: one device following, unfollowing or dismissing one match,
/// when the driver asked (Unix ms), and the push-to-start tokens of the user's devices then (a follow of a live match
/// must bring a start push to them).
public struct MatchDayAction: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Codable {
        case follow, unfollow, dismiss
    }

    public var kind: Kind
    public var device: String
    /// The fixture id.
    public var match: String
    public var at: Int64
    public var pushToStartTokens: [String]

    public init(kind: Kind, device: String, match: String, at: Int64, pushToStartTokens: [String] = []) {
        self.kind = kind
        self.device = device
        self.match = match
        self.at = at
        self.pushToStartTokens = pushToStartTokens
    }
}
