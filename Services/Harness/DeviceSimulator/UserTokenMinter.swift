import Foundation
import Synchronization
import Runtime

/// Gives the bearer JWT a simulated user sends to the api.
protocol UserTokenMinter: Sendable {
    /// A valid access token for `userId`.
    func token(userId: String) throws -> String
}

/// The same token for everyone (tests, or a pre-minted token).
struct StaticTokenMinter: UserTokenMinter {
    let value: String
    func token(userId: String) throws -> String { value }
}

/// Caches another minter's tokens per user and re-mints them after `lifetime` seconds.
final class CachingTokenMinter: UserTokenMinter {
    private let base: any UserTokenMinter
    private let lifetime: TimeInterval
    private let cache = LockedValue<[String: (token: String, mintedAt: Date)]>([:])

    init(_ base: any UserTokenMinter, lifetime: TimeInterval) {
        self.base = base
        self.lifetime = lifetime
    }

    func token(userId: String) throws -> String {
        let now = Date()
        if let cached = cache.withLock({ $0[userId] }), now.timeIntervalSince(cached.mintedAt) < lifetime { return cached.token }
        let token = try base.token(userId: userId)
        cache.withLock { $0[userId] = (token, now) }
        return token
    }
}
