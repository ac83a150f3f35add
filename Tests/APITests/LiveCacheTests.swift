@testable import API
import Foundation
import SharedTestSupport
import Synchronization
import Testing
import Runtime

/// The GET /matches/live body cache without servers: one build at a time, the previous body at hand while it runs.
@Suite("Live cache")
struct LiveCacheTests {
    /// Counts the builds and holds each one at a gate until the test opens it.
    final class Builds: Sendable {
        let count = Atomic<Int>(0)
        let gates = LockedValue<[TestGate]>([])

        func build(_ text: String) async -> [UInt8] {
            let gate = TestGate()
            gates.withLock { $0.append(gate) }
            count.add(1, ordering: .relaxed)
            await gate.wait()
            return Array(text.utf8)
        }

        func openAll() { for gate in gates.withLock({ $0 }) { gate.open() } }
        var started: Int { count.load(ordering: .relaxed) }
    }

    @Test func callersWhileABuildRunsShareItAndTheOldBodyStaysAtHand() async throws {
        let clock = ManualWallClock()
        let cache = LiveCache(lifetime: 1, clock: clock)
        let builds = Builds()
        #expect(cache.bodyAtHand() == nil)
        async let first = cache.body { await builds.build("one") }
        try await eventually("the first build starts") { builds.started == 1 }
        builds.openAll()
        #expect(try await first == Array("one".utf8))
        #expect(cache.bodyAtHand() == Array("one".utf8))

        clock.advance(by: 1.2)  // stale: nothing at hand until a rebuild runs
        #expect(cache.bodyAtHand() == nil)
        async let a = cache.body { await builds.build("two") }
        try await eventually("the rebuild starts") { builds.started == 2 }
        async let b = cache.body { await builds.build("never") }
        async let c = cache.body { await builds.build("never") }
        #expect(cache.bodyAtHand() == Array("one".utf8), "the previous body while the rebuild runs")
        builds.openAll()
        let bodies = try await [a, b, c]
        #expect(bodies.allSatisfy { $0 == Array("two".utf8) })
        #expect(builds.started == 2, "one build for the three callers")
        #expect(cache.bodyAtHand() == Array("two".utf8))
    }

    @Test func aBuildThatRunsPastTwiceTheLifetimeLeavesNothingAtHand() async throws {
        let clock = ManualWallClock()
        let cache = LiveCache(lifetime: 1, clock: clock)
        let builds = Builds()
        async let first = cache.body { await builds.build("one") }
        try await eventually("the first build starts") { builds.started == 1 }
        builds.openAll()
        _ = try await first
        clock.advance(by: 1.5)
        async let slow = cache.body { await builds.build("two") }
        try await eventually("the rebuild starts") { builds.started == 2 }
        #expect(cache.bodyAtHand() == Array("one".utf8))
        clock.advance(by: 1)  // 2.5 s old
        #expect(cache.bodyAtHand() == nil)
        builds.openAll()
        #expect(try await slow == Array("two".utf8))
    }

    @Test func aFailedBuildIsNotKeptAndTheNextCallerBuildsAgain() async throws {
        struct Down: Error {}
        let cache = LiveCache(lifetime: 1, clock: ManualWallClock())
        await #expect(throws: Down.self) { try await cache.body { throw Down() } }
        #expect(cache.bodyAtHand() == nil)
        #expect(try await cache.body { Array("ok".utf8) } == Array("ok".utf8))
    }

    @Test func aLifetimeOfZeroBuildsForEveryCaller() async throws {
        let cache = LiveCache(lifetime: 0, clock: ManualWallClock())
        #expect(try await cache.body { Array("a".utf8) } == Array("a".utf8))
        #expect(try await cache.body { Array("b".utf8) } == Array("b".utf8))
        #expect(cache.bodyAtHand() == nil)
    }
}
