import Synchronization
import Runtime

/// Which token a delivery reached the simulated device by (not `Contracts.TokenKind`, which names the token a
/// `TokenInvalid` message is about).
enum DeliveryTokenKind: String, Sendable, Equatable, Codable {
    /// The standard APNs device token (alerts).
    case device
    /// The ActivityKit push-to-start token.
    case pushToStart
    /// A per-activity update token.
    case update
    /// A channel activity's subscriber id at mock-apns (each broadcast on its channel is copied to it).
    case channel
}

/// Where a token leads: a device (by index in the fleet) and the kind of token.
struct TokenRoute: Sendable, Equatable {
    var deviceIndex: Int
    var kind: DeliveryTokenKind
}

/// Token → device routing for every simulated device, filled as tokens are issued (before they
/// are ever sent to the api, so no delivery can outrun its route). A channel activity is routed by a subscriber id
/// of its own (kind `channel`): the subscriptions wait here until the intake makes them at the mock.
final class TokenDirectory: Sendable {
    private let routes = LockedValue<[String: TokenRoute]>([:])
    private let pending = LockedValue<[(channelId: String, subscriber: String)]>([])

    init() {}

    func register(_ token: String, deviceIndex: Int, kind: DeliveryTokenKind) {
        routes.withLock { $0[token.lowercased()] = TokenRoute(deviceIndex: deviceIndex, kind: kind) }
    }

    func route(_ token: String) -> TokenRoute? { routes.withLock { $0[token.lowercased()] } }

    var count: Int { routes.withLock { $0.count } }

    /// A channel activity of device `deviceIndex` started: a new subscriber id routes its copies, subscribed at the
    /// mock by the intake's next poll.
    func subscribe(channelId: String, deviceIndex: Int) {
        let subscriber = HexToken.random(length: 160)
        register(subscriber, deviceIndex: deviceIndex, kind: .channel)
        pending.withLock { $0.append((channelId, subscriber)) }
    }

    /// The subscriptions not made yet (removed; put back with `retry` when making them failed).
    func takePendingSubscriptions() -> [(channelId: String, subscriber: String)] {
        pending.withLock { pending in defer { pending = [] }; return pending }
    }

    func retry(_ subscriptions: [(channelId: String, subscriber: String)]) {
        pending.withLock { $0.insert(contentsOf: subscriptions, at: 0) }
    }
}
