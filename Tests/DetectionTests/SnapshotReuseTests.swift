import SharedTestSupport
import Contracts
import CricsheetReplay
import Cricket
import Foundation
import Testing
@testable import Detection

/// The detector service decodes with one ball cache per match; that must never change what it detects.
@Suite struct SnapshotReuseTests {
    /// The pages that carry the whole fixture from nothing (basis 0, then a chain).
    func messages(_ fixture: SportMonksFixture, matchId: String, polledAt: Int64) throws -> [[UInt8]] {
        let json = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(fixture))
        return try FixtureSnapshotPager.plan(matchId: matchId, polledAt: polledAt, fixture: json, after: FixtureFeedCursor()).encoded
    }

    @Test("messages decoded with the per-match cache give the same fixtures and events as without",
          arguments: DataDirectory.matchIds.prefix(2))
    func cachedDecodeDetectsTheSame(matchId: Int) throws {
        let match = try DataDirectory.match(matchId)
        let builder = SportMonksFixtureBuilder(match: match)
        let caches = SnapshotReuseCaches(capacity: 4)
        let plainChains = BallChains(), cachedChains = BallChains()
        let detector = MatchDetector()
        var plainState: DetectorState?
        var cachedState: DetectorState?
        for (index, position) in match.replayTimeline().enumerated() where index % 2 == 0 {
            var plainStep = BallChains.Step.pending, cachedStep = BallChains.Step.pending
            var plain: SnapshotDecoding.Decoded?, cached: SnapshotDecoding.Decoded?
            for bytes in try messages(builder.fixture(at: position), matchId: "\(matchId)",
                                      polledAt: 1_800_000_000_000 + Int64(index) * 40_000) {
                plain = try SnapshotDecoding.decode(bytes)
                cached = try SnapshotDecoding.decode(bytes, reusing: caches.cache(for: "\(matchId)"))
                plainStep = plainChains.apply(try #require(plain))
                cachedStep = cachedChains.apply(try #require(cached))
            }
            guard let plain, let cached, case .assembled(let plainFixture) = plainStep,
                  case .assembled(let cachedFixture) = cachedStep else {
                Issue.record("the pages of a whole fixture assemble on the last")
                return
            }
            #expect(cachedFixture == plainFixture, "\(matchId) at \(index)")
            let plainOutcome = detector.process(fixture: plainFixture, matchId: plain.matchId, polledAt: plain.polledAt,
                                                state: plainState)
            let cachedOutcome = detector.process(fixture: cachedFixture, matchId: cached.matchId,
                                                 polledAt: cached.polledAt, state: cachedState)
            #expect(cachedOutcome.events == plainOutcome.events, "\(matchId) at \(index)")
            plainState = plainOutcome.state
            cachedState = cachedOutcome.state
        }
        let statistics = caches.cache(for: "\(matchId)").statistics
        // Balls travel once each now; the lineup, batting and bowling rows still repeat from poll to poll.
        #expect(statistics.hits > 2 * statistics.misses, "the cache was hardly used: \(statistics)")
    }

    @Test func keepsOnlyTheMostRecentlyUsedMatches() {
        let caches = SnapshotReuseCaches(capacity: 2)
        let first = caches.cache(for: "a")
        _ = caches.cache(for: "b")
        #expect(caches.cache(for: "a") === first)  // "a" is now the most recent
        _ = caches.cache(for: "c")                  // drops "b", the least recently used
        #expect(caches.count == 2)
        #expect(caches.cache(for: "a") === first)
        caches.forget("a")
        #expect(caches.cache(for: "a") !== first)
    }
}
