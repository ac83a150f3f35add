import Foundation
import Synchronization

/// The time of day, injectable so that anything time-based (stale checks, cooldowns, JWT age, TTL)
/// is exact and instant in tests.
public protocol WallClock: Sendable {
    /// The current instant.
    func now() -> Date
}

/// The real clock.
public struct SystemWallClock: WallClock {
    public init() {}
    public func now() -> Date { Date() }
}
