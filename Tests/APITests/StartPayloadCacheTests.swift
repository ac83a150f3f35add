import Contracts
import Foundation
import Testing
@testable import API

/// The cached start body must be byte-for-byte the body encoded for the request's own second.
@Suite struct StartPayloadCacheTests {
    let factory = PushJobFactory(shards: 64)

    @Test func cachedBodiesEqualFreshlyEncodedOnesAtEverySecond() throws {
        let cache = StartPayloadCache()
        let state = APITestHarness.displayState("m-cache")
        var makes = 0
        for second in [1_800_000_000, 1_800_000_001, 1_800_003_600, 1_999_999_999] as [TimeInterval] {
            let now = Date(timeIntervalSince1970: second)
            let cached = cache.payload(matchId: "m-cache", stateText: "s1", now: now) { at in
                makes += 1
                return factory.startPayload(matchId: "m-cache", state: state, now: at)
            }
            #expect(cached == factory.startPayload(matchId: "m-cache", state: state, now: now), "at \(second)")
        }
        #expect(makes == 1, "one encode per (match, state)")
    }

    @Test func aDifferentStateIsADifferentBody() throws {
        let cache = StartPayloadCache()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        var other = APITestHarness.displayState("m-cache")
        other.statusText = "India need 12 runs"
        let first = cache.payload(matchId: "m-cache", stateText: "a", now: now) { at in
            factory.startPayload(matchId: "m-cache", state: APITestHarness.displayState("m-cache"), now: at)
        }
        let second = cache.payload(matchId: "m-cache", stateText: "b", now: now) { at in
            factory.startPayload(matchId: "m-cache", state: other, now: at)
        }
        #expect(first != second)
        #expect(second == factory.startPayload(matchId: "m-cache", state: other, now: now))
    }

    @Test func aStateThatQuotesTheKeysCannotFoolTheTemplate() throws {
        var tricky = APITestHarness.displayState("m-cache")
        tricky.statusText = #""stale-date":3999999999 "timestamp":3999999999"#
        let cache = StartPayloadCache()
        let now = Date(timeIntervalSince1970: 1_800_000_123)
        let body = cache.payload(matchId: "m-cache", stateText: "t", now: now) { at in
            factory.startPayload(matchId: "m-cache", state: tricky, now: at)
        }
        #expect(body == factory.startPayload(matchId: "m-cache", state: tricky, now: now))
    }
}
