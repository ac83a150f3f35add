import Synchronization
import Runtime

/// Which token a delivery was addressed to.
enum TokenKind: String, Sendable, Equatable, Codable {
    /// The standard APNs device token (alerts).
    case device
    /// The ActivityKit push-to-start token.
    case pushToStart
    /// A per-activity update token.
    case update
}

/// Where a token leads: a device (by index in the fleet) and the kind of token.
struct TokenRoute: Sendable, Equatable {
    var deviceIndex: Int
    var kind: TokenKind
}

/// Token → device routing for every simulated device, filled as tokens are issued (before they
/// are ever sent to the api, so no delivery can outrun its route).
final class TokenDirectory: Sendable {
    private let routes = LockedValue<[String: TokenRoute]>([:])

    init() {}

    func register(_ token: String, deviceIndex: Int, kind: TokenKind) {
        routes.withLock { $0[token.lowercased()] = TokenRoute(deviceIndex: deviceIndex, kind: kind) }
    }

    func route(_ token: String) -> TokenRoute? { routes.withLock { $0[token.lowercased()] } }

    var count: Int { routes.withLock { $0.count } }
}
