import Foundation
import Runtime
import Synchronization

/// Keeps the GET /matches/live answer body for a short time: every client polls it, the data
/// changes at most once per poll cycle, and the answer is the same for every user.
final class LiveCache: Sendable {
    private struct Entry {
        var body: [UInt8]
        var builtAt: Date
    }

    private let lifetime: TimeInterval
    private let clock: any WallClock
    private let entry = LockedValue<Entry?>(nil)

    init(lifetime: TimeInterval, clock: any WallClock) {
        self.lifetime = lifetime
        self.clock = clock
    }

    /// The cached body while fresh, else nil.
    func freshBody() -> [UInt8]? {
        freshBody(now: clock.now())
    }

    /// The cached body while fresh, else `build()`'s (stored for the next callers).
    func body(_ build: () async throws -> [UInt8]) async throws -> [UInt8] {
        let now = clock.now()
        if let cached = freshBody(now: now) { return cached }
        let body = try await build()
        entry.withLock { $0 = Entry(body: body, builtAt: now) }
        return body
    }

    private func freshBody(now: Date) -> [UInt8]? {
        guard let cached = entry.withLock({ $0 }), now.timeIntervalSince(cached.builtAt) < lifetime, now >= cached.builtAt else {
            return nil
        }
        return cached.body
    }
}
