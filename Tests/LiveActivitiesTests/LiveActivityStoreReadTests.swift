import Foundation
import LiveActivities
import Postgres
import Runtime
import ServerTestSupport
import Testing

/// `LiveActivityStore`'s reads against PostgreSQL: the orchestrator's start and rollover candidates, the
/// fan-out's active targets, the admin counts and the TTL sweep.
@Suite struct LiveActivityStoreReadTests {
    static func database() async throws -> PostgresClient {
        try await TestServers.database(schemaPrefix: "la_reads", logger: LiveActivityStoreTests.logger)
    }

    static func insert(_ database: PostgresClient, user: String, device: String = "d1", status: String, reason: String? = nil,
                       token: String? = nil, activatedAt: Date? = nil, expiresAt: Date? = nil) async throws {
        try await database.execute(
            """
            INSERT INTO live_activities (match_id, user_id, device_id, status, end_reason, update_token, activated_at, expires_at, start_attempts)
            VALUES ('m', $1, $2, $3, $4, $5, $6, $7, 2)
            """, [user, device, status, reason, token, activatedAt, expiresAt])
    }

    @Test("start candidates: followers with a push-to-start token and no row or a re-startable ended row, in key order")
    func startCandidates() async throws {
        let database = try await Self.database()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try await database.execute("INSERT INTO matches (match_id, status, is_live, card) VALUES ('m', '1st Innings', true, '{\"title\":\"A v B\"}')")
        try await database.execute("INSERT INTO active_matches (match_id, seq, display_state) VALUES ('m', 7, '{\"score\":\"1/0\"}')")
        for user in ["a-new", "b-dead", "c-day", "d-active", "e-unfollowed", "f-no-token"] {
            try await database.execute("INSERT INTO match_follows (user_id, match_id) VALUES ($1, 'm')", [user])
            try await database.execute("INSERT INTO devices (user_id, device_id, push_to_start_token, apns_env) VALUES ($1, 'd1', $2, 'sandbox')",
                                       [user, user == "f-no-token" ? nil : "pts-" + user])
        }
        try await Self.insert(database, user: "b-dead", status: "ended", reason: "token_invalid")
        try await Self.insert(database, user: "c-day", status: "ended", reason: "day_end")
        try await Self.insert(database, user: "d-active", status: "active", token: "t")
        try await Self.insert(database, user: "e-unfollowed", status: "ended", reason: "user_unfollow")
        var seen: [ActivityStartCandidate] = []
        try await LiveActivityStore(database: database).forEachStartCandidate(now: now, batchSize: 2) { seen.append($0) }
        #expect(seen.map(\.device.userId) == ["a-new", "b-dead", "c-day"])
        #expect(seen[0].ended == nil)
        #expect(seen[1].ended?.reason == .tokenInvalid && seen[1].ended?.attempts == 2)
        #expect(seen[2].ended?.reason == .dayEnd)
        let first = seen[0].device
        #expect(first.pushToStartToken == "pts-a-new" && first.apnsEnvironment == "sandbox" && first.stateSeq == 7)
        #expect(first.card?.description.contains("A v B") == true && first.displayState != nil)

        try await database.execute("UPDATE matches SET close_of_play = true WHERE match_id = 'm'")
        var atStumps = 0
        try await LiveActivityStore(database: database).forEachStartCandidate(now: now, batchSize: 2) { _ in atStumps += 1 }
        #expect(atStumps == 0, "no starts at close of play")
        await database.shutdown()
    }

    @Test("start candidates: an iOS 18 device waits while its match's channel is being made, for at most the wait; token devices never wait")
    func startCandidatesWaitForAChannelBeingMade() async throws {
        let database = try await Self.database()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try await database.execute("INSERT INTO matches (match_id, status, is_live) VALUES ('m', '1st Innings', true)")
        for (user, capable) in [("capable", true), ("token", false)] {
            try await database.execute("INSERT INTO match_follows (user_id, match_id) VALUES ($1, 'm')", [user])
            try await database.execute(
                "INSERT INTO devices (user_id, device_id, push_to_start_token, apns_env, channel_capable) VALUES ($1, 'd1', $2, 'sandbox', $3)",
                [user, "pts-" + user, capable])
            try await Self.insert(database, user: user, status: "ended", reason: "token_invalid")
        }
        try await database.execute(
            "INSERT INTO broadcast_channels (match_id, apns_env, storage_policy, state, generation, updated_at) VALUES ('m', 'sandbox', 0, 'invalid', 1, $1)",
            [now.addingTimeInterval(-30)])
        let store = LiveActivityStore(database: database)
        func candidates() async throws -> [String] {
            var seen: [String] = []
            try await store.forEachStartCandidate(now: now, channelWait: .seconds(120), batchSize: 10) { seen.append($0.device.userId) }
            return seen
        }
        #expect(try await candidates() == ["token"], "the lost channel was invalidated 30 s ago: the capable device waits")
        try await database.execute("UPDATE broadcast_channels SET state = 'creating'")
        #expect(try await candidates() == ["token"], "still waiting while the create is out")
        try await database.execute("UPDATE broadcast_channels SET state = 'invalid', failure_reason = 'create unanswered'")
        #expect(try await candidates() == ["capable", "token"], "APNs left the create unanswered: no waiting (the row would cycle)")
        try await database.execute("UPDATE broadcast_channels SET state = 'creating', failure_reason = NULL")
        try await database.execute("UPDATE broadcast_channels SET state = 'active', channel_id = 'Y2hhbm5lbA==', updated_at = $1", [now])
        var channels: [String?] = []
        try await store.forEachStartCandidate(now: now, batchSize: 10) { channels.append($0.device.channelId) }
        #expect(channels == ["Y2hhbm5lbA==", nil], "the capable device starts on the new channel, the other on its token")
        try await database.execute("UPDATE broadcast_channels SET state = 'creating', channel_id = NULL, updated_at = $1", [now.addingTimeInterval(-121)])
        #expect(try await candidates() == ["capable", "token"], "after the wait it starts on tokens")
        await database.shutdown()
    }

    @Test("rollover candidates: ACTIVE rows activated before the cutoff, with an update token, bounded by the limit")
    func rolloverCandidates() async throws {
        let database = try await Self.database()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try await database.execute("INSERT INTO matches (match_id, status, is_live) VALUES ('m', '1st Innings', true)")
        for user in ["old-1", "old-2", "old-3", "young"] {
            try await database.execute("INSERT INTO devices (user_id, device_id, push_to_start_token) VALUES ($1, 'd1', 'pts')", [user])
            try await Self.insert(database, user: user, status: "active", token: "t-" + user,
                                  activatedAt: now.addingTimeInterval(user == "young" ? -60 : -9 * 3600))
        }
        let store = LiveActivityStore(database: database)
        let cutoff = now.addingTimeInterval(-8 * 3600)
        let two = try await store.rolloverCandidates(activatedBefore: cutoff, limit: 2)
        #expect(two.map(\.device.userId) == ["old-1", "old-2"])
        #expect(two[0].updateToken == "t-old-1" && two[0].attempts == 2 && two[0].device.apnsEnvironment == "production")
        #expect(try await store.rolloverCandidates(activatedBefore: cutoff, limit: 10).count == 3)
        await database.shutdown()
    }

    @Test("active targets stream in key order; counts by status; expired rows are swept in batches")
    func fanOutCountsAndSweep() async throws {
        let database = try await Self.database()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        try await database.execute("INSERT INTO devices (user_id, device_id, apns_env) VALUES ('u2', 'd1', 'sandbox')")
        try await Self.insert(database, user: "u2", status: "active", token: "t2")
        try await database.execute("UPDATE live_activities SET apns_env = 'sandbox' WHERE user_id = 'u2'")  // as registered
        try await Self.insert(database, user: "u1", device: "d2", status: "active", token: "t1b")
        try await Self.insert(database, user: "u1", status: "active", token: "t1")
        try await Self.insert(database, user: "u3", status: "active")
        try await Self.insert(database, user: "u4", status: "pending")
        for index in 0..<5 {
            try await Self.insert(database, user: "x\(index)", status: "ended", reason: "match_end", expiresAt: now.addingTimeInterval(-1))
        }
        let store = LiveActivityStore(database: database)
        var targets: [ActiveActivity] = []
        let streamed = try await store.forEachActiveActivity(matchId: "m", batchSize: 2) { targets.append($0) }
        #expect(streamed == 3)
        #expect(targets.map { "\($0.userId)/\($0.deviceId)=\($0.updateToken)@\($0.apnsEnvironment)" }
            == ["u1/d1=t1@production", "u1/d2=t1b@production", "u2/d1=t2@sandbox"])
        #expect(try await store.countsByStatus() == [.active: 4, .pending: 1, .ended: 5])
        #expect(try await store.counts(matchId: "m").map { "\($0.status) \($0.endReason ?? "-") \($0.delivery) \($0.count)" }
                == ["active - token 4", "ended match_end token 5", "pending - token 1"], "the match report's counts")
        #expect(try await store.counts(matchId: "other").isEmpty)
        #expect(try await store.deleteExpired(before: now, batchSize: 2, maxBatches: 2) == 4, "two batches of two")
        #expect(try await store.deleteExpired(before: now, batchSize: 2, maxBatches: 2) == 1)
        #expect(try await store.countsByStatus()[.ended] == nil)
        await database.shutdown()
    }
}
