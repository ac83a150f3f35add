import Foundation
import Runtime
import Synchronization


/// A clock that only moves when told to, for tests.
public final class ManualWallClock: WallClock {
    private let current: LockedValue<Date>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        current = LockedValue(start)
    }

    public func now() -> Date { current.withLock { $0 } }

    /// Moves the clock forward by `seconds`.
    public func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }

    public func set(_ date: Date) { current.withLock { $0 = date } }
}
