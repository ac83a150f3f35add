import BroadcastChannels
import FeedHistory
import Contracts
import Foundation
import Kafka
import Matches
import Postgres
import PushComposition
import Runtime
import Testing
@testable import LACoordinator
import ServerTestSupport
import SharedTestSupport

/// The MatchOrchestrator with real PostgreSQL and Kafka.
@Suite struct OrchestratorTests {
    static func orchestrator(_ database: PostgresClient, _ producer: KafkaProducer, clock: any WallClock,
                             settings: MatchOrchestrator.Settings = .init()) -> MatchOrchestrator {
        var settings = settings
        settings.jobsTopic = ManagementTestSupport.jobsTopic
        return MatchOrchestrator(database: database, producer: producer, settings: settings, clock: clock,
                          metrics: ActivityManagementMetrics(registry: MetricsRegistry()), logger: ManagementTestSupport.logger)
    }


    /// A channel activity near iOS's 8-hour limit gets a new push-to-start on the channel and no end push (it has no
    /// update token; the app ends the older activity of the match when the new one starts).
    @Test func aChannelActivityIsRolledOverWithAStartAlone() async throws {
        let (database, schema) = try await ManagementTestSupport.database()
        defer { Task { await ManagementTestSupport.dropSchema(schema, database) } }
        let producer = try ManagementTestSupport.producer()
        let matchId = String(ManagementTestSupport.uniqueOffset() + 11)
        let clock = ManualWallClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        try await database.execute("INSERT INTO matches (match_id, status, is_live) VALUES ($1, 'S1', true)", [matchId])
        try await FollowerRows.device(database, user: "u", device: "d1", pushToStart: FollowerRows.token(5))
        try await FollowerRows.follow(database, user: "u", match: matchId)
        try await database.execute("UPDATE devices SET channel_capable = true WHERE user_id = 'u'")
        let store = BroadcastChannelStore(database: database)
        let generation = try #require(try await store.beginCreate(matchId: matchId, environment: .sandbox, storagePolicy: 0, now: clock.now()))
        let channel = "Uk9MTE9WRVI="
        #expect(try await store.activate(matchId: matchId, environment: .sandbox, generation: generation, channelId: channel, now: clock.now()))
        try await database.execute(
            """
            INSERT INTO live_activities (match_id, user_id, device_id, status, delivery, channel_id, start_attempts, activated_at)
            VALUES ($1, 'u', 'd1', 'active', 'channel', $2, 1, $3)
            """, [matchId, channel, clock.now().addingTimeInterval(-8 * 3600)])
        let orchestrator = Self.orchestrator(database, producer, clock: clock)
        #expect(try await orchestrator.runOnce() == .init(rolledOver: 1))
        let jobs = try await ManagementTestSupport.jobs(matchId: matchId, expected: 1)
        #expect(jobs.map(\.job.kind) == [.liveActivityStart], "no end push: a channel activity has no update token")
        let aps = try #require(try JSONDecoder().decode(JSONValue.self, from: Data(jobs[0].job.payload.utf8))["aps"])
        #expect(aps["input-push-channel"] == .string(channel))
        let row = try #require(try await database.query("SELECT status, start_attempts FROM live_activities WHERE match_id = $1", [matchId]).first)
        #expect(try row.decode(0, as: String.self) == "pending" && row.decode(1, as: Int.self) == 2)
        try await producer.shutdown()
    }

    /// A channel-capable device of a match with a broadcast channel in its environment starts on the channel.
    @Test func capableDevicesStartOnTheMatchsChannelOthersOnTokens() async throws {
        let (database, schema) = try await ManagementTestSupport.database()
        defer { Task { await ManagementTestSupport.dropSchema(schema, database) } }
        let producer = try ManagementTestSupport.producer()
        let matchId = String(ManagementTestSupport.uniqueOffset() + 9)
        try await database.execute("INSERT INTO matches (match_id, status, is_live) VALUES ($1, 'S1', true)", [matchId])
        try await FollowerRows.follow(database, user: "u", match: matchId)
        for (device, index) in [("capable", 1), ("old", 2), ("capable-prod", 3)] {
            try await FollowerRows.device(database, user: "u", device: device, pushToStart: FollowerRows.token(index))
        }
        try await database.execute("UPDATE devices SET channel_capable = true WHERE device_id LIKE 'capable%'")
        try await database.execute("UPDATE devices SET apns_env = 'production' WHERE device_id = 'capable-prod'")
        let store = BroadcastChannelStore(database: database)
        let generation = try #require(try await store.beginCreate(matchId: matchId, environment: .sandbox, storagePolicy: 0, now: Date()))
        let channel = "Q0hBTk5FTA=="
        #expect(try await store.activate(matchId: matchId, environment: .sandbox, generation: generation, channelId: channel, now: Date()))
        let orchestrator = Self.orchestrator(database, producer, clock: ManualWallClock())
        #expect(try await orchestrator.runOnce().started == 3)
        let jobs = try await ManagementTestSupport.jobs(matchId: matchId, expected: 3)
        func aps(_ device: String) throws -> [String: Any] {
            let job = try #require(jobs.first { $0.job.targets.first?.deviceId == device }?.job)
            let body = try #require(try JSONSerialization.jsonObject(with: Data(job.payload.utf8)) as? [String: Any])
            return try #require(body["aps"] as? [String: Any])
        }
        #expect(try aps("capable")["input-push-channel"] as? String == channel)
        #expect(try aps("old")["input-push-channel"] == nil, "not capable: a token start")
        #expect(try aps("capable-prod")["input-push-channel"] == nil, "no channel in its environment")
        #expect(try aps("capable")["input-push-token"] == nil, "never both inputs")
        try await producer.shutdown()
    }

    /// More candidates than one chunk: they are streamed and started chunk by chunk, each device once.
    @Test func manyFollowersAreStartedChunkByChunk() async throws {
        let (database, schema) = try await ManagementTestSupport.database()
        defer { Task { await ManagementTestSupport.dropSchema(schema, database) } }
        let producer = try ManagementTestSupport.producer()
        let matchId = String(ManagementTestSupport.uniqueOffset() + 7)
        try await database.execute("INSERT INTO matches (match_id, status, is_live) VALUES ($1, 'S1', true)", [matchId])
        for user in 0..<4 {
            try await FollowerRows.follow(database, user: "u\(user)", match: matchId)
            for device in 0..<3 {
                try await FollowerRows.device(database, user: "u\(user)", device: "d\(device)", pushToStart: FollowerRows.token(user * 3 + device))
            }
        }
        var settings = MatchOrchestrator.Settings()
        settings.chunkSize = 5
        let clock = ManualWallClock()
        let orchestrator = Self.orchestrator(database, producer, clock: clock, settings: settings)
        #expect(try await orchestrator.runOnce().started == 12, "4 users × 3 devices, in chunks of 5, 5 and 2")
        #expect(try await orchestrator.runOnce() == .init(), "nothing twice")
        let count = try #require(try await database.query(
            "SELECT count(*) AS n FROM live_activities WHERE match_id = $1 AND status = 'pending' AND start_attempts = 1",
            [matchId]).first).decode("n", as: Int.self)
        #expect(count == 12)
        let jobs = try await ManagementTestSupport.jobs(matchId: matchId, expected: 12)
        #expect(Set(jobs.map(\.job.jobId)).count == 12, "one start job per device")
        try await producer.shutdown()
    }

    @Test func tokenInvalidRowOnALiveMatchIsRestartedAtMostTheConfiguredTimes() async throws {
        let (database, schema) = try await ManagementTestSupport.database()
        let producer = try ManagementTestSupport.producer()
        let matchId = String(ManagementTestSupport.uniqueOffset() + 42)
        let clock = ManualWallClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down) + 0.000_000_7))
        let card = MatchCard(matchId: matchId, startsAt: Int64(clock.now().timeIntervalSince1970), status: "1st Innings", phase: .live,
                             title: "India vs Australia", subtitle: "1st T20I", home: .init(name: "India", abbr: "IND", score: "45/1 (5)", logoUrl: nil),
                             away: .init(name: "Australia", abbr: "AUS", score: "", logoUrl: nil), statusText: "1st Innings")
        try await database.execute("INSERT INTO matches (match_id, starts_at, status, is_live, card) VALUES ($1, $2, '1st Innings', true, $3)",
                                   [matchId, clock.now(), try PostgresJSON(encoding: card)])
        let state = FallbackDisplayState.fromCard(card, updatedAt: 1_800_000_000)
        var detectorState = state
        detectorState.statusText = "From the detector"
        try await database.execute("INSERT INTO active_matches (match_id, display_state) VALUES ($1, $2)",
                                   [matchId, try PostgresJSON(encoding: detectorState)])
        try await FollowerRows.device(database, user: "u1", device: "d1", pushToStart: FollowerRows.token(7))
        try await FollowerRows.follow(database, user: "u1", match: matchId)
        var settings = MatchOrchestrator.Settings()
        settings.maxStartAttempts = 2
        settings.retryBackoff = .seconds(60)
        let orchestrator = Self.orchestrator(database, producer, clock: clock, settings: settings)
        #expect(try await orchestrator.runOnce().started == 1)

        func endWithTokenInvalid() async throws {
            #expect(try await database.execute(
                """
                UPDATE live_activities SET status = 'ended', end_reason = 'token_invalid', updated_at = $2
                WHERE match_id = $1 AND status = 'pending'
                """, [matchId, clock.now()]) == 1)
        }
        for (restart, wait) in [(1, 60.0), (2, 120.0)] {
            try await endWithTokenInvalid()
            clock.advance(by: wait - 0.01)
            #expect(try await orchestrator.runOnce() == .init(waiting: 1), "re-start \(restart) waits for its backoff")
            clock.advance(by: 0.01)
            #expect(try await orchestrator.runOnce() == .init(restarted: 1), "re-start \(restart)")
            #expect(try await orchestrator.runOnce() == .init())
        }
        try await endWithTokenInvalid()
        clock.advance(by: 86_400)
        #expect(try await orchestrator.runOnce() == .init(exhausted: 1), "no third re-start with ORCHESTRATOR_MAX_START_ATTEMPTS=2")
        let attempts = try #require(try await database.query("SELECT start_attempts, status FROM live_activities WHERE match_id = $1", [matchId]).first)
        #expect(try attempts.decode("start_attempts", as: Int.self) == 3)
        #expect(try attempts.decode("status", as: String.self) == "ended")

        let jobs = try await ManagementTestSupport.jobs(matchId: matchId, expected: 3)
        #expect(jobs.map(\.job.jobId).sorted() == (1...3).map { "start:\(matchId):u1:d1:\($0)" })
        let payload = try JSONDecoder().decode(JSONValue.self, from: Data(try #require(jobs.first).job.payload.utf8))
        #expect(payload["aps"]?["content-state"]?["statusText"] == .string("From the detector"),
                "the detector's display state is the content state when there is one")
        try await producer.shutdown()
        await ManagementTestSupport.dropSchema(schema, database)
    }

    /// Close of play: nobody is started while the match is at stumps (not a day_end row, not a new
    /// follower); once play resumes every day_end row gets a fresh push-to-start with a new job id, and
    /// the token_invalid budget counts from it.
    @Test func dayEndRowsStartAgainWhenPlayResumesWithAFreshBudget() async throws {
        let (database, schema) = try await ManagementTestSupport.database()
        let producer = try ManagementTestSupport.producer()
        let matchId = String(ManagementTestSupport.uniqueOffset() + 43)
        let clock = ManualWallClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        try await database.execute(
            "INSERT INTO matches (match_id, status, is_live, close_of_play) VALUES ($1, 'Stump Day 1', true, true)", [matchId])
        for (user, n) in [("u1", 1), ("u2", 2), ("u3", 3)] {
            try await FollowerRows.device(database, user: user, device: "d1", pushToStart: FollowerRows.token(n))
            try await FollowerRows.follow(database, user: user, match: matchId)
        }
        // u1's day ended at stumps after two re-starts; u2's activity had run out of re-starts on day 1; u3 followed overnight.
        try await database.execute(
            """
            INSERT INTO live_activities (match_id, user_id, device_id, status, end_reason, start_attempts, updated_at)
            VALUES ($1, 'u1', 'd1', 'ended', 'day_end', 3, $2), ($1, 'u2', 'd1', 'ended', 'token_invalid', 3, $2)
            """, [matchId, clock.now()])
        var settings = MatchOrchestrator.Settings()
        settings.maxStartAttempts = 2
        settings.retryBackoff = .zero
        let orchestrator = Self.orchestrator(database, producer, clock: clock, settings: settings)
        #expect(try await orchestrator.runOnce() == .init(), "at stumps nobody is started")

        try await database.execute("UPDATE matches SET status = '3rd Innings', close_of_play = false WHERE match_id = $1", [matchId])
        clock.advance(by: 60)
        #expect(try await orchestrator.runOnce() == .init(started: 1, newDay: 1, exhausted: 1),
                "u1's new day, u3's first start; u2's token_invalid budget is spent")
        let u1 = try #require(try await database.query(
            "SELECT status, start_attempts, day_start_attempt FROM live_activities WHERE match_id = $1 AND user_id = 'u1'", [matchId]).first)
        #expect(try u1.decode("status", as: String.self) == "pending")
        #expect(try u1.decode("start_attempts", as: Int.self) == 4 && u1.decode("day_start_attempt", as: Int.self) == 4)

        // The new day's activity dies: it is re-started (the budget counts from the day's start).
        #expect(try await database.execute(
            "UPDATE live_activities SET status = 'ended', end_reason = 'token_invalid' WHERE match_id = $1 AND user_id = 'u1'",
            [matchId]) == 1)
        #expect(try await orchestrator.runOnce() == .init(restarted: 1, exhausted: 1))
        let jobs = try await ManagementTestSupport.jobs(matchId: matchId, expected: 3)
        #expect(jobs.map(\.job.jobId).sorted() == ["start:\(matchId):u1:d1:4", "start:\(matchId):u1:d1:5", "start:\(matchId):u3:d1:1"])
        #expect(jobs.allSatisfy { $0.job.kind == .liveActivityStart })
        try await producer.shutdown()
        await ManagementTestSupport.dropSchema(schema, database)
    }

    /// An activity about to reach iOS's 8-hour limit is ended (dismissed at once) and started again; a
    /// younger one, and one of a match at stumps, are left alone.
    @Test func anActivityNearTheEightHourLimitIsEndedAndStartedAgain() async throws {
        let (database, schema) = try await ManagementTestSupport.database()
        let producer = try ManagementTestSupport.producer()
        let matchId = String(ManagementTestSupport.uniqueOffset() + 44), stumped = matchId + "-stumps"
        let clock = ManualWallClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))
        try await database.execute(
            "INSERT INTO matches (match_id, status, is_live, close_of_play) VALUES ($1, '1st Innings', true, false), ($2, 'Stump Day 2', true, true)",
            [matchId, stumped])
        var state = FallbackDisplayState.fromCard(FallbackDisplayState.placeholderCard(matchId: matchId), updatedAt: 1_800_000_000)
        state.statusText = "Day 1 · rain-delayed"
        try await database.execute("INSERT INTO active_matches (match_id, display_state) VALUES ($1, $2)",
                                   [matchId, try PostgresJSON(encoding: state)])
        for (user, n) in [("old", 1), ("young", 2)] {
            try await FollowerRows.device(database, user: user, device: "d1", pushToStart: FollowerRows.token(n))
            try await FollowerRows.follow(database, user: user, match: matchId)
        }
        let eightHoursAgo = clock.now().addingTimeInterval(-8 * 3600)
        try await database.execute(
            """
            INSERT INTO live_activities (match_id, user_id, device_id, status, update_token, start_attempts, activated_at)
            VALUES ($1, 'old', 'd1', 'active', 'update-old', 1, $2), ($1, 'young', 'd1', 'active', 'update-young', 1, $3),
                   ($4, 'old', 'd1', 'active', 'update-stumped', 1, $2)
            """, [matchId, eightHoursAgo, clock.now().addingTimeInterval(-3600), stumped])
        let orchestrator = Self.orchestrator(database, producer, clock: clock)
        #expect(try await orchestrator.runOnce() == .init(rolledOver: 1))
        #expect(try await orchestrator.runOnce() == .init(), "once")

        let jobs = try await ManagementTestSupport.jobs(matchId: matchId, expected: 2)
        let end = try #require(jobs.first { $0.job.kind == .liveActivityEnd }?.job)
        let start = try #require(jobs.first { $0.job.kind == .liveActivityStart }?.job)
        #expect(end.targets.map(\.token) == ["update-old"] && end.jobId == "rollover:\(matchId):old:d1:2")
        #expect(start.targets.map(\.token) == [FollowerRows.token(1)] && start.jobId == "start:\(matchId):old:d1:2")
        let aps = try #require(try JSONDecoder().decode(JSONValue.self, from: Data(end.payload.utf8))["aps"])
        #expect(aps["event"] == .string("end") && aps["dismissal-date"] == aps["timestamp"] && aps["alert"] == nil)
        #expect(aps["content-state"]?["statusText"] == .string("Day 1 · rain-delayed"))
        let rows = try await database.query(
            "SELECT match_id, user_id, status, start_attempts, day_start_attempt FROM live_activities ORDER BY 1, 2")
        let summary = try rows.map { row in
            let match = try row.decode("match_id", as: String.self) == matchId ? "m" : "s"
            return "\(match):\(try row.decode("user_id", as: String.self)):\(try row.decode("status", as: String.self)):"
                + "\(try row.decode("start_attempts", as: Int.self)):\(try row.decode("day_start_attempt", as: Int.self))"
        }
        #expect(summary == ["m:old:pending:2:2", "m:young:active:1:1", "s:old:active:1:1"])
        try await producer.shutdown()
        await ManagementTestSupport.dropSchema(schema, database)
    }

    @Test func ttlSweepDeletesExpiredRowsInBatches() async throws {
        let (database, schema) = try await ManagementTestSupport.database()
        let clock = ManualWallClock(Date())
        let past = clock.now().addingTimeInterval(-3600), future = clock.now().addingTimeInterval(3600)
        for n in 0..<5 {
            try await database.execute("INSERT INTO match_follows (user_id, match_id, expires_at) VALUES ($1, 'm', $2)", ["old\(n)", past])
        }
        try await database.execute("INSERT INTO match_follows (user_id, match_id, expires_at) VALUES ('new', 'm', $1)", [future])
        try await database.execute("INSERT INTO match_follows (user_id, match_id) VALUES ('forever', 'm')")
        for n in 0..<3 {
            try await database.execute(
                "INSERT INTO live_activities (match_id, user_id, device_id, status, end_reason, expires_at) VALUES ('m', $1, 'd', 'ended', 'match_end', $2)",
                ["old\(n)", past])
        }
        // Ball history: kept for a live match and for one that ended recently, deleted for one that ended long ago.
        let longAgo = clock.now().addingTimeInterval(-3 * 86_400)
        for (match, live, updated) in [("live", true, longAgo), ("recent", false, clock.now()), ("over", false, longAgo)] {
            try await database.execute("INSERT INTO matches (match_id, is_live, updated_at) VALUES ($1, $2, $3)", [match, live, updated])
            for ball in 1...3 {
                try await database.execute("INSERT INTO feed_balls (match_id, ball_id, seq, hash, ball) VALUES ($1, $2, 1, 7, '{}')",
                                           [match, ball])
            }
            try await database.execute("INSERT INTO feed_cursors (match_id, seq) VALUES ($1, 1)", [match])
        }
        // Delivery record: a match's rows kept for a week after its last push (DELIVERY_RECORD_RETENTION_MS).
        for (match, lastAt) in [("idle", clock.now().addingTimeInterval(-8 * 86_400)), ("recent", clock.now().addingTimeInterval(-86_400))] {
            try await database.execute("INSERT INTO delivery_record_matches (match_id, last_at) VALUES ($1, $2)", [match, lastAt])
            try await database.execute(
                "INSERT INTO push_deliveries (match_id, user_id, device_id, first_at, last_at) VALUES ($1, 'u', 'd', $2, $2)", [match, lastAt])
        }
        let sweeper = TTLSweeper(database: database, settings: .init(interval: .seconds(60), batchSize: 2, maxBatches: 10),
                                 clock: clock, metrics: ActivityManagementMetrics(registry: MetricsRegistry()), logger: ManagementTestSupport.logger)
        #expect(try await sweeper.sweepOnce() == ["match_follows": 5, "live_activities": 3, "feed_balls": 3, "push_deliveries": 1])
        #expect(try await sweeper.sweepOnce() == ["match_follows": 0, "live_activities": 0, "feed_balls": 0, "push_deliveries": 0])
        let history = try await database.query("SELECT DISTINCT match_id FROM feed_balls ORDER BY match_id")
            .map { try $0.decode("match_id", as: String.self) }
        #expect(history == ["live", "recent"])
        let cursors = try await database.query("SELECT match_id FROM feed_cursors ORDER BY match_id")
            .map { try $0.decode("match_id", as: String.self) }
        #expect(cursors == ["live", "recent"], "a swept match starts a full list next time")
        let left = try await database.query("SELECT user_id FROM match_follows ORDER BY user_id").map { try $0.decode("user_id", as: String.self) }
        #expect(left == ["forever", "new"])
        await ManagementTestSupport.dropSchema(schema, database)
    }
}
