import Foundation
import LiveActivities
import Postgres
import Runtime
import ServerTestSupport
import Testing

/// `FollowStore` against PostgreSQL: the follow statement's outcome per key (starts for a match in play, none for
/// an upcoming one, nil for an unknown one), the unfollow, the list, the counts and the TTL sweep; and
/// `LiveActivityStore.markStartsUnsent`, which makes a follow's unsent starts go again.
@Suite struct FollowStoreTests {
    static func database() async throws -> PostgresClient {
        try await TestServers.database(schemaPrefix: "follow_store", logger: LiveActivityStoreTests.logger)
    }

    static func seed(_ database: PostgresClient) async throws {
        try await database.execute("INSERT INTO matches (match_id, status, is_live, card) VALUES ('live', '1st Innings', true, '{\"title\":\"A v B\"}')")
        try await database.execute("INSERT INTO matches (match_id, status, is_live) VALUES ('later', 'NS', false)")
        try await database.execute("INSERT INTO active_matches (match_id, seq, display_state) VALUES ('live', 9, '{\"score\":\"1/0\"}')")
        for device in ["d1", "d2"] {
            try await database.execute("INSERT INTO devices (user_id, device_id, push_to_start_token, apns_env) VALUES ('u1', $1, $2, 'sandbox')",
                                       [device, "pts-" + device])
        }
    }

    @Test("follow: a match in play starts every push-to-start device; an upcoming match none; an unknown match is nil")
    func followOutcomes() async throws {
        let database = try await Self.database()
        try await Self.seed(database)
        let store = FollowStore(database: database)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let keys = ["live", "missing", "later"].map { FollowStore.FollowKey(userId: "u1", matchId: $0) }
        let outcomes = try await store.follow(keys, policy: FollowPolicy(), now: now)
        #expect(outcomes.count == 3 && outcomes[1] == nil)
        let live = try #require(outcomes[0])
        #expect(live.isLive && live.seq == 9 && live.displayState?.contains("1/0") == true && live.card == nil,
                "the card is read only without a display state")
        #expect(live.starts == [
            FollowStore.Start(deviceId: "d1", pushToStartToken: "pts-d1", apnsEnvironment: "sandbox", startAttempts: 1, channelId: nil),
            FollowStore.Start(deviceId: "d2", pushToStartToken: "pts-d2", apnsEnvironment: "sandbox", startAttempts: 1, channelId: nil),
        ])
        let later = try #require(outcomes[2])
        #expect(!later.isLive && later.starts.isEmpty)
        #expect(try await store.follow(Array(keys.prefix(1)), policy: FollowPolicy(), now: now.addingTimeInterval(5))[0]?.starts == [],
                "a PENDING row started 5 s ago is not started again")

        try await LiveActivityStore(database: database).markStartsUnsent([("live", "u1", "d2")])
        let again = try await store.follow(Array(keys.prefix(1)), policy: FollowPolicy(), now: now.addingTimeInterval(6))
        #expect(again[0]?.starts.map(\.deviceId) == ["d2"] && again[0]?.starts.first?.startAttempts == 2, "the unsent start goes again")

        #expect(try await store.follows(userId: "u1").map(\.matchId).sorted() == ["later", "live"])
        #expect(try await store.followerCount(matchId: "live", now: now) == 1)
        #expect(try await store.count() == 2)
        let removed = try await database.withTransaction { connection in
            (try await FollowStore.unfollow(userId: "u1", matchId: "live", on: connection),
             try await FollowStore.unfollow(userId: "u1", matchId: "live", on: connection))
        }
        #expect(removed == (true, false))
        #expect(try await store.followerCount(matchId: "live", now: now) == 0)
        await database.shutdown()
    }

    @Test("follower count and TTL sweep: a follow past expires_at is not counted and is deleted in batches")
    func expiry() async throws {
        let database = try await Self.database()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        for (user, expires) in [("u1", now.addingTimeInterval(-10)), ("u2", now.addingTimeInterval(-5)), ("u3", now.addingTimeInterval(60))] {
            try await database.execute("INSERT INTO match_follows (user_id, match_id, expires_at) VALUES ($1, 'm', $2)", [user, expires])
        }
        try await database.execute("INSERT INTO match_follows (user_id, match_id) VALUES ('u4', 'm')")
        let store = FollowStore(database: database)
        #expect(try await store.followerCount(matchId: "m", now: now) == 2, "u3 and u4 (no expiry)")
        #expect(try await store.deleteExpired(before: now, batchSize: 1, maxBatches: 1) == 1, "one batch of one this sweep")
        #expect(try await store.deleteExpired(before: now, batchSize: 1, maxBatches: 5) == 1)
        #expect(try await store.count() == 2)
        await database.shutdown()
    }
}
