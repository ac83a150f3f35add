import Foundation
import Runtime
import Synchronization

/// A token bucket per user: `perMinute` requests per minute with bursts up to a tenth of it
/// (at least 20). Buckets idle for two minutes are dropped on the next sweep.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: TimeInterval
    }

    private struct State {
        var buckets: [String: Bucket] = [:]
        var lastSweep: TimeInterval = 0
    }

    private let ratePerSecond: Double
    private let burst: Double
    private let clock: any WallClock
    private let state = LockedValue(State())

    init(perMinute: Int, clock: any WallClock) {
        ratePerSecond = Double(perMinute) / 60
        burst = max(20, Double(perMinute) / 10)
        self.clock = clock
    }

    /// Takes one token for `user`; false when the bucket is empty.
    func allow(_ user: String) -> Bool {
        let now = clock.now().timeIntervalSince1970
        return state.withLock { state in
            if now - state.lastSweep > 60 {
                state.buckets = state.buckets.filter { now - $0.value.updated < 120 }
                state.lastSweep = now
            }
            var bucket = state.buckets[user] ?? Bucket(tokens: burst, updated: now)
            bucket.tokens = min(burst, bucket.tokens + max(0, now - bucket.updated) * ratePerSecond)
            bucket.updated = now
            let allowed = bucket.tokens >= 1
            if allowed { bucket.tokens -= 1 }
            state.buckets[user] = bucket
            return allowed
        }
    }
}
