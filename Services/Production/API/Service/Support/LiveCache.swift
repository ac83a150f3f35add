import Foundation
import Runtime
import Synchronization

/// Keeps the GET /matches/live answer body for a short time: every client polls it, the data
/// changes at most once per poll cycle, and the answer is the same for every user.
///
/// One build at a time: callers that find the body stale while it is being rebuilt await that build instead of
/// querying PostgreSQL themselves (at a toss, every open connection would otherwise run the query in the same
/// millisecond), and `bodyAtHand()` keeps answering with the previous body until the new one is there, for at
/// most twice the lifetime. A lifetime of zero turns the cache off: every caller builds its own body.
final class LiveCache: Sendable {
    private struct State {
        var body: [UInt8]?
        var builtAt = Date.distantPast
        /// The rebuild running now, if any.
        var building: Task<[UInt8], any Error>?
    }

    private enum Plan {
        case cached([UInt8])
        case await(Task<[UInt8], any Error>)
    }

    private let lifetime: TimeInterval
    private let clock: any WallClock
    private let state = LockedValue(State())

    init(lifetime: TimeInterval, clock: any WallClock) {
        self.lifetime = lifetime
        self.clock = clock
    }

    /// The body to answer with now, without waiting: the cached one while fresh or, while a rebuild runs, while
    /// it is younger than twice the lifetime. nil: the caller must call `body(_:)`.
    func bodyAtHand() -> [UInt8]? {
        let now = clock.now()
        return state.withLock { state in
            guard let body = state.body, now >= state.builtAt else { return nil }
            let age = now.timeIntervalSince(state.builtAt)
            if age < lifetime || (state.building != nil && age < 2 * lifetime) { return body }
            return nil
        }
    }

    /// The cached body while fresh, else the body of the rebuild running now, else `build()`'s (stored for the
    /// next callers).
    func body(_ build: @escaping @Sendable () async throws -> [UInt8]) async throws -> [UInt8] {
        guard lifetime > 0 else { return try await build() }
        let now = clock.now()
        let plan = state.withLock { state -> Plan in
            if let body = state.body, now >= state.builtAt, now.timeIntervalSince(state.builtAt) < lifetime {
                return .cached(body)
            }
            if let building = state.building { return .await(building) }
            let building = Task { [self] in
                do {
                    let body = try await build()
                    self.state.withLock { state in
                        state.body = body
                        state.builtAt = now
                        state.building = nil
                    }
                    return body
                } catch {
                    self.state.withLock { $0.building = nil }
                    throw error
                }
            }
            state.building = building
            return .await(building)
        }
        switch plan {
        case .cached(let body): return body
        case .await(let building): return try await building.value
        }
    }
}
